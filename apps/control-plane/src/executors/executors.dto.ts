/** The executors API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CAPPED_PAGE_DOCS, PageQueryDto } from '../common/pagination.dto';
import { ResourceEntryDto } from '../common/resources.dto';
import { ExecutorState } from './executor.entity';

export class ExecutorListQueryDto extends PageQueryDto {
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() frameworkId?: string;

  @ApiPropertyOptional({ enum: ExecutorState, enumName: 'ExecutorState' })
  @IsOptional()
  @IsIn(Object.values(ExecutorState), { message: `state must be one of ${Object.values(ExecutorState).join(', ')}` })
  state?: ExecutorState;
}

export class ExecutorDto {
  @ApiProperty({ description: "the executor's row id" }) id!: string;
  @ApiProperty({ description: "the framework's own id for the executor (Mesos's ExecutorInfo.executor_id)" }) executorId!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() frameworkId!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ enum: ['CUSTOM', 'DEFAULT'] }) type!: 'CUSTOM' | 'DEFAULT';
  @ApiProperty({ description: 'the role whose offered resources its own resources came from' }) role!: string;
  @ApiProperty({ type: [ResourceEntryDto], description: 'its own resources, beside its tasks' }) resources!: ResourceEntryDto[];
  @ApiProperty() resourcesText!: string;
  @ApiProperty({ type: [String], description: "the framework's ids of the tasks it ran, oldest first" }) tasks!: string[];
  @ApiProperty({ enum: ExecutorState, enumName: 'ExecutorState' }) state!: ExecutorState;
  @ApiProperty() startedAt!: string;
  @ApiProperty({ type: String, nullable: true }) endedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "why it ended (Mesos's reason)" }) endReason!: string | null;
  @ApiProperty({ type: Number, nullable: true }) exitCode!: number | null;
  @ApiProperty({ type: String, nullable: true }) signal!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
}

export class ExecutorPageDto {
  @ApiProperty({ type: [ExecutorDto] }) items!: ExecutorDto[];
  @ApiProperty({ description: CAPPED_PAGE_DOCS.total }) total!: number;
  @ApiProperty({ description: CAPPED_PAGE_DOCS.totalCapped }) totalCapped!: boolean;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}
