/** The cluster summary's shapes. */
import { ALERT_CODES, type AlertCode } from '@arbiter/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { RevocableUsageDto } from '../common/resources.dto';

class ResourceSummaryDto {
  @ApiProperty({ example: 'cpus' }) name!: string;
  @ApiProperty({ description: 'total of reachable agents' }) total!: number;
  @ApiProperty({ description: 'held by live tasks' }) used!: number;
  @ApiProperty({ description: 'offered and not yet answered' }) offered!: number;
  @ApiProperty({ description: 'reserved for roles (used or not)' }) reserved!: number;
}

class AgentCountsDto {
  @ApiProperty() total!: number;
  @ApiProperty() reachable!: number;
  @ApiProperty() unreachable!: number;
  @ApiProperty() gone!: number;
  @ApiProperty({ description: 'reachable, not offered by an operator' }) deactivated!: number;
  @ApiProperty({ description: 'draining or drained' }) draining!: number;
  @ApiProperty({ description: 'machines DOWN for maintenance' }) down!: number;
}

class FrameworkCountsDto {
  @ApiProperty() active!: number;
  @ApiProperty({ description: 'within their failover timeout' }) disconnected!: number;
  @ApiProperty() completed!: number;
}

class LastCycleDto {
  @ApiProperty() id!: string;
  @ApiProperty() startedAt!: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty() offerCount!: number;
}

export enum AlertSeverity {
  CRITICAL = 'critical',
  WARNING = 'warning',
  INFO = 'info',
}

export class AlertTargetDto {
  @ApiProperty({ enum: ['agent', 'framework', 'role', 'cluster'] }) kind!: 'agent' | 'framework' | 'role' | 'cluster';
  @ApiProperty({ type: String, nullable: true }) id!: string | null;
}

export class AlertDto {
  @ApiProperty({ enum: AlertSeverity, enumName: 'AlertSeverity' }) severity!: AlertSeverity;
  @ApiProperty({
    enum: ALERT_CODES,
    enumName: 'AlertCode',
    example: 'AGENT_UNREACHABLE',
    description: 'the stable code of the alert',
  })
  code!: AlertCode;
  @ApiProperty() message!: string;
  @ApiProperty({ type: AlertTargetDto }) target!: AlertTargetDto;
}

export class ClusterSummaryDto {
  @ApiProperty({ type: [ResourceSummaryDto], description: 'scalar resources, by name' }) resources!: ResourceSummaryDto[];
  @ApiProperty({ type: AgentCountsDto }) agents!: AgentCountsDto;
  @ApiProperty({ type: FrameworkCountsDto }) frameworks!: FrameworkCountsDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'tasks by state (every task ever launched)',
    example: { RUNNING: 3, FINISHED: 10 },
  })
  tasks!: Record<string, number>;
  @ApiProperty({ description: 'tasks not in a terminal state' }) activeTasks!: number;
  @ApiProperty({
    type: RevocableUsageDto,
    description:
      "oversubscription: reachable agents' revocable resources as the leader's allocator has them (empty maps when none reports any)",
  })
  revocable!: RevocableUsageDto;
  @ApiProperty({ description: 'offers made and not yet answered' }) outstandingOffers!: number;
  @ApiProperty({ type: LastCycleDto, nullable: true, description: 'the latest recorded allocation cycle' }) lastCycle!: LastCycleDto | null;
  @ApiProperty({ type: [AlertDto], description: 'most severe first' }) alerts!: AlertDto[];
}
