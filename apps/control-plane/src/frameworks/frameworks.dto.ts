import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CAPPED_PAGE_DOCS, PageQueryDto } from '../common/pagination.dto';
import { ResourceEntryDto } from '../common/resources.dto';
import { FrameworkState } from './framework.entity';
import { OfferState } from '../offers/offer.entity';
import { TaskState } from '../tasks/task.entity';

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
    description: "scalar resources held by the framework's live tasks",
    example: { cpus: 3, mem: 12288 },
  })
  used!: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'used / cluster total, per resource' })
  shares!: Record<string, number>;
  @ApiProperty({ description: "dominant share of the framework's live tasks: the largest of `shares`", example: 0.667 })
  dominantShare!: number;
}

export class FrameworkPageDto {
  @ApiProperty({ type: [FrameworkDto] }) items!: FrameworkDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class OfferListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: OfferState, enumName: 'OfferState' })
  @IsOptional()
  @IsIn(Object.values(OfferState), { message: `state must be one of ${Object.values(OfferState).join(', ')}` })
  state?: OfferState;

  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() frameworkId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
}

export class OfferDto {
  @ApiProperty() id!: string;
  @ApiProperty() frameworkId!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() role!: string;
  @ApiProperty({ type: [ResourceEntryDto] }) resources!: ResourceEntryDto[];
  @ApiProperty() resourcesText!: string;
  @ApiProperty({ enum: OfferState, enumName: 'OfferState' }) state!: OfferState;
  @ApiProperty({ type: String, nullable: true, description: 'allocation cycle that made the offer' }) cycleId!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty({ type: String, nullable: true }) closedAt!: string | null;
}

export class OfferPageDto {
  @ApiProperty({ type: [OfferDto] }) items!: OfferDto[];
  @ApiProperty({ description: CAPPED_PAGE_DOCS.total }) total!: number;
  @ApiProperty({ description: CAPPED_PAGE_DOCS.totalCapped }) totalCapped!: boolean;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class TaskListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TaskState, enumName: 'TaskState' })
  @IsOptional()
  @IsIn(Object.values(TaskState), { message: `state must be one of ${Object.values(TaskState).join(', ')}` })
  state?: TaskState;

  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() frameworkId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
}

export class TaskStatusDto {
  @ApiProperty({ enum: TaskState, enumName: 'TaskState' }) state!: TaskState;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty() source!: string;
  @ApiProperty() at!: string;
  @ApiProperty({ type: String, nullable: true, description: 'when the framework acknowledged it' }) acknowledgedAt!: string | null;
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
