/** The tasks API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { CAPPED_PAGE_DOCS, PageQueryDto } from '../common/pagination.dto';
import { ResourceEntryDto } from '../common/resources.dto';
import { TaskState } from './task.entity';

/** A status reason as tasks carry them: Mesos's (REASON_CONTAINER_PREEMPTED) and Arbiter's own (REASON_MEMORY_LIMIT). */
const TASK_REASON = /^REASON_[A-Z0-9_]{1,100}$/;

export class TaskListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TaskState, enumName: 'TaskState' })
  @IsOptional()
  @IsIn(Object.values(TaskState), { message: `state must be one of ${Object.values(TaskState).join(', ')}` })
  state?: TaskState;

  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() frameworkId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;

  @ApiPropertyOptional({
    description:
      "the reason of the status that brought the task to its current state (REASON_CONTAINER_PREEMPTED: evicted by its agent's QoS controller)",
    example: 'REASON_CONTAINER_PREEMPTED',
    pattern: TASK_REASON.source,
  })
  @IsOptional()
  @IsString()
  @Matches(TASK_REASON, { message: 'reason must be a status reason such as REASON_CONTAINER_PREEMPTED (REASON_ and capitals, digits, _)' })
  reason?: string;

  @ApiPropertyOptional({ description: 'tasks updated at or after this time (ISO 8601)', example: '2026-01-31T12:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'updatedSince must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z' })
  updatedSince?: string;
}

class TaskStatusDto {
  @ApiProperty({ enum: TaskState, enumName: 'TaskState' }) state!: TaskState;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty() source!: string;
  @ApiProperty() at!: string;
  @ApiProperty({ type: String, nullable: true, description: 'when the framework acknowledged it' }) acknowledgedAt!: string | null;
}

class LabelDto {
  @ApiProperty() key!: string;
  @ApiPropertyOptional() value?: string;
}

const VISIBILITY = ['FRAMEWORK', 'CLUSTER', 'EXTERNAL'];

class DiscoveryPortDto {
  @ApiProperty() number!: number;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() protocol?: string;
  @ApiPropertyOptional({ enum: VISIBILITY }) visibility?: 'FRAMEWORK' | 'CLUSTER' | 'EXTERNAL';
  @ApiPropertyOptional({ type: [LabelDto] }) labels?: LabelDto[];
}

/** Mesos's DiscoveryInfo, as the framework gave it. */
class DiscoveryDto {
  @ApiProperty({ enum: VISIBILITY }) visibility!: 'FRAMEWORK' | 'CLUSTER' | 'EXTERNAL';
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() environment?: string;
  @ApiPropertyOptional() location?: string;
  @ApiPropertyOptional() version?: string;
  @ApiPropertyOptional({ type: [DiscoveryPortDto] }) ports?: DiscoveryPortDto[];
  @ApiPropertyOptional({ type: [LabelDto] }) labels?: LabelDto[];
}

class ContainerImageDto {
  @ApiProperty({ example: 'registry.local:5000/team/app:1.2', description: 'a Docker reference; a digest pins it' }) name!: string;
  @ApiPropertyOptional({ description: "fetch the manifest again even when the agent's store has the tag" }) forcePull?: boolean;
}

class VolumeSourceDto {
  @ApiProperty({ enum: ['HOST_PATH', 'SANDBOX_PATH'] }) type!: 'HOST_PATH' | 'SANDBOX_PATH';
  @ApiProperty({
    description: 'HOST_PATH: an absolute path on the agent (one its configuration allows); SANDBOX_PATH: relative to the sandbox',
  })
  path!: string;
  @ApiPropertyOptional({ enum: ['SELF', 'PARENT'], description: "SANDBOX_PATH: the task's own sandbox, or its task group's" })
  sandboxType?: 'SELF' | 'PARENT';
}

class VolumeDto {
  @ApiProperty({ description: 'where it appears in the container' }) containerPath!: string;
  @ApiProperty({ enum: ['RW', 'RO'] }) mode!: 'RW' | 'RO';
  @ApiProperty({ type: VolumeSourceDto }) source!: VolumeSourceDto;
}

class PortMappingDto {
  @ApiProperty({ description: 'an offered port of the agent' }) hostPort!: number;
  @ApiProperty() containerPort!: number;
  @ApiProperty({ enum: ['tcp', 'udp'] }) protocol!: 'tcp' | 'udp';
}

/** Mesos's ContainerInfo in Arbiter's terms (libs/contracts ContainerSpec). */
class ContainerDto {
  @ApiProperty({
    enum: ['MESOS', 'DOCKER'],
    description: "both run through the agent's one containerizer; MESOS without an image: a plain isolated process",
  })
  type!: 'MESOS' | 'DOCKER';
  @ApiPropertyOptional({ type: ContainerImageDto }) image?: ContainerImageDto;
  @ApiPropertyOptional({ type: [VolumeDto] }) volumes?: VolumeDto[];
  @ApiPropertyOptional({ type: [PortMappingDto], description: "DOCKER: offered host ports onto the container's" })
  portMappings?: PortMappingDto[];
  @ApiPropertyOptional() hostname?: string;
}

class RunningImageDto {
  @ApiProperty({ example: 'registry.local:5000/team/app:1.2', description: 'the image reference, normalized by the agent' })
  reference!: string;
  @ApiProperty({ example: 'sha256:0123...', description: "the manifest's digest" }) digest!: string;
}

/** A general check's last result (Mesos's CheckStatusInfo). */
class CheckStatusDto {
  @ApiProperty({ enum: ['COMMAND', 'HTTP', 'TCP'] }) type!: 'COMMAND' | 'HTTP' | 'TCP';
  @ApiPropertyOptional({ description: "COMMAND: the command's exit code" }) exitCode?: number;
  @ApiPropertyOptional({ description: 'HTTP: the status code' }) statusCode?: number;
  @ApiPropertyOptional({ description: 'TCP: whether it connected' }) succeeded?: boolean;
}

export class TaskDto {
  @ApiProperty({ description: "the task's row id (GET /api/v1/tasks/{id})" }) id!: string;
  @ApiProperty({ description: "the framework's own id for the task" }) taskId!: string;
  @ApiProperty() frameworkId!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() role!: string;
  @ApiProperty({ type: [ResourceEntryDto] }) resources!: ResourceEntryDto[];
  @ApiProperty() resourcesText!: string;
  @ApiProperty({ enum: TaskState, enumName: 'TaskState' }) state!: TaskState;
  @ApiProperty({ type: [LabelDto], description: "the framework's labels of the task (Mesos's TaskInfo.labels)" }) labels!: LabelDto[];
  @ApiProperty({ type: DiscoveryDto, nullable: true, description: 'how service discovery finds the task; stored and shown, not acted on' })
  discovery!: DiscoveryDto | null;
  @ApiProperty({ type: Number, nullable: true, description: 'size in bytes of the data handed to its executor (null: none)' })
  dataBytes!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'its kill policy: seconds between SIGTERM and SIGKILL when a kill names none (null: 5)',
  })
  killGracePeriodSeconds!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'killed and FAILED when still running this long after it started (null: no limit)',
  })
  maxCompletionTimeSeconds!: number | null;
  @ApiProperty({ type: ContainerDto, nullable: true, description: 'its container, as its framework gave it (null: a plain process)' })
  container!: ContainerDto | null;
  @ApiProperty({ type: RunningImageDto, nullable: true, description: 'the image its agent runs for it (null: none reported yet)' })
  containerImage!: RunningImageDto | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'what its health check said last (null: it has none, or none answered yet)' })
  healthy!: boolean | null;
  @ApiProperty({ type: CheckStatusDto, nullable: true, description: "its general check's last result (null: it has none)" })
  checkStatus!: CheckStatusDto | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
  @ApiPropertyOptional({ type: [TaskStatusDto], description: 'every state change, oldest first (single task only)' })
  history?: TaskStatusDto[];
}

export class TaskPageDto {
  @ApiProperty({ type: [TaskDto] }) items!: TaskDto[];
  @ApiProperty({ description: CAPPED_PAGE_DOCS.total }) total!: number;
  @ApiProperty({ description: CAPPED_PAGE_DOCS.totalCapped }) totalCapped!: boolean;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class KillTaskDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 3600, description: 'seconds between SIGTERM and SIGKILL (default 5)' })
  @IsOptional()
  @Max(3600)
  @Min(0)
  @IsNumber({}, { message: 'gracePeriodSeconds must be a number of seconds' })
  gracePeriodSeconds?: number;
}
