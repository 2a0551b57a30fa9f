import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../common/pagination.dto';
import { FrameworkState } from './framework.entity';
import { ExecutorDto } from '../executors/executors.dto';

export class FrameworkListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FrameworkState, enumName: 'FrameworkState' })
  @IsOptional()
  @IsIn(Object.values(FrameworkState), { message: `state must be one of ${Object.values(FrameworkState).join(', ')}` })
  state?: FrameworkState;

  @ApiPropertyOptional({ description: 'frameworks subscribed to this role' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  role?: string;
}

export class FrameworkDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) principal!: string | null;
  @ApiProperty({
    enum: ['arbiter', 'mesos'],
    enumName: 'FrameworkProtocol',
    description: "the protocol it subscribed with: Arbiter's own (socket.io, the SDK) or Mesos's v1 scheduler HTTP API",
  })
  protocol!: 'arbiter' | 'mesos';
  @ApiProperty({ type: String, nullable: true, description: "the framework's own web UI (Mesos's FrameworkInfo.webui_url)" })
  webuiUrl!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "the user its tasks run as (Mesos's FrameworkInfo.user)" }) user!:
    string | null;
  @ApiProperty({ type: String, nullable: true, description: "the scheduler's host (Mesos's FrameworkInfo.hostname)" }) hostname!:
    string | null;
  @ApiProperty({ description: "Mesos's FrameworkInfo.checkpoint: its tasks survive an agent restart" }) checkpoint!: boolean;
  @ApiProperty({ type: [String] }) roles!: string[];
  @ApiProperty({ type: [String] }) suppressedRoles!: string[];
  @ApiProperty({ type: [String] }) capabilities!: string[];
  @ApiProperty({ enum: FrameworkState, enumName: 'FrameworkState' }) state!: FrameworkState;
  @ApiProperty({ description: 'connected to the control plane now' }) connected!: boolean;
  @ApiProperty() failoverTimeoutSeconds!: number;
  @ApiProperty() registeredAt!: string;
  @ApiProperty({ type: String, nullable: true }) disconnectedAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) completedAt!: string | null;
  @ApiProperty({ description: 'tasks not in a terminal state' }) activeTasks!: number;
  @ApiProperty({ description: 'offers made and not yet answered' }) outstandingOffers!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: "scalar resources held by the framework's live tasks and its executors",
    example: { cpus: 3, mem: 12288 },
  })
  used!: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'used / cluster total, per resource' })
  shares!: Record<string, number>;
  @ApiProperty({ description: "dominant share of the framework's live tasks: the largest of `shares`", example: 0.667 })
  dominantShare!: number;
  @ApiPropertyOptional({
    type: [ExecutorDto],
    description: 'its running executors (one framework only; seen as its tasks are, with the view_tasks ACL)',
  })
  executors?: ExecutorDto[];
}

export class FrameworkPageDto {
  @ApiProperty({ type: [FrameworkDto] }) items!: FrameworkDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class ExplainQueryDto {
  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 500, description: 'recent cycles to look at' })
  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @Max(500)
  @IsInt({ message: 'cycles must be a whole number' })
  cycles: number = 20;
}

export class ExplainDto {
  @ApiProperty() frameworkId!: string;
  @ApiProperty({ description: 'the answer in plain words, one sentence per finding' }) summary!: string[];
  @ApiProperty() cyclesExamined!: number;
  @ApiProperty() offersReceived!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'reasons the framework was passed over, counted over the cycles examined',
  })
  reasons!: Record<string, number>;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'the trace entries about this framework (most recent first, at most 50)',
  })
  examples!: unknown[];
}
