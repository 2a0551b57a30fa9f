import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Resources } from '@arbiter/allocator';
import { PageQueryDto } from '../common/pagination.dto';
import { ResourceEntryDto } from '../common/resources.dto';
import { type AgentEntity, AgentStatus, DrainState } from './agent.entity';
import { AGENT_SORT_FIELDS } from './agents.repository';

const SORTS = AGENT_SORT_FIELDS.flatMap((f) => [f, `-${f}`]);

export class AgentListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'substring of the hostname (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  hostname?: string;

  @ApiPropertyOptional({ enum: AgentStatus, enumName: 'AgentStatus' })
  @IsOptional()
  @IsIn(Object.values(AgentStatus), { message: `status must be one of ${Object.values(AgentStatus).join(', ')}` })
  status?: AgentStatus;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'activated must be true or false' })
  activated?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['NONE', ...Object.values(DrainState)], description: 'NONE: not draining' })
  @IsOptional()
  @IsIn(['NONE', ...Object.values(DrainState)], { message: `drainState must be one of NONE, ${Object.values(DrainState).join(', ')}` })
  drainState?: DrainState | 'NONE';

  @ApiPropertyOptional({ enum: SORTS, default: 'hostname', description: "field to sort by; '-' for descending" })
  @IsOptional()
  @IsIn(SORTS, { message: `sort must be one of ${SORTS.join(', ')}` })
  sort?: string;
}

export class DrainAgentDto {
  @ApiPropertyOptional({ description: 'seconds tasks get to finish before being killed; absent: as long as they need', minimum: 0, maximum: 31_536_000 })
  @IsOptional()
  @IsInt({ message: 'maxGracePeriodSeconds must be a whole number of seconds' })
  @Min(0)
  @Max(31_536_000)
  maxGracePeriodSeconds?: number;

  @ApiPropertyOptional({ description: 'mark the agent GONE once drained (it can never come back under this id)', default: false })
  @IsOptional()
  @IsBoolean({ message: 'markGone must be true or false' })
  markGone?: boolean;
}

export class DrainConfigDto {
  @ApiProperty({ type: Number, nullable: true }) maxGracePeriodSeconds!: number | null;
  @ApiProperty() markGone!: boolean;
}

export class AgentDto {
  @ApiProperty() id!: string;
  @ApiProperty() hostname!: string;
  @ApiProperty({ type: String, nullable: true, description: 'host:port of the agent' }) address!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] }, example: { rack: 'r1' } })
  attributes!: Record<string, string | number>;
  @ApiProperty({ type: [ResourceEntryDto], description: 'total resources' }) resources!: ResourceEntryDto[];
  @ApiProperty({ example: 'cpus:4;mem:8192;ports:[31000-32000]', description: 'total resources, Mesos text form' }) resourcesText!: string;
  @ApiProperty({ enum: AgentStatus, enumName: 'AgentStatus' }) status!: AgentStatus;
  @ApiProperty({ description: 'false when deactivated: no new offers' }) activated!: boolean;
  @ApiProperty({ enum: DrainState, enumName: 'DrainState', nullable: true }) drainState!: DrainState | null;
  @ApiProperty({ type: DrainConfigDto, nullable: true }) drainConfig!: DrainConfigDto | null;
  @ApiProperty({ type: String, nullable: true }) drainStartedAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) version!: string | null;
  @ApiProperty() firstSeenAt!: string;
  @ApiProperty() lastSeenAt!: string;
}

export class AgentPageDto {
  @ApiProperty({ type: [AgentDto] }) items!: AgentDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export function toAgentDto(a: AgentEntity): AgentDto {
  return {
    id: a.id,
    hostname: a.hostname,
    address: a.address,
    attributes: a.attributes,
    resources: a.resources,
    resourcesText: Resources.of(a.resources).toString(),
    status: a.status,
    activated: a.activated,
    drainState: a.drainState,
    drainConfig: a.drainConfig,
    drainStartedAt: a.drainStartedAt?.toISOString() ?? null,
    version: a.version,
    firstSeenAt: a.firstSeenAt.toISOString(),
    lastSeenAt: a.lastSeenAt.toISOString(),
  };
}
