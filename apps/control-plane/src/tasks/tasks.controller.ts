import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { TaskDto, TaskListQueryDto, TaskPageDto } from './tasks.dto';
import { TasksErrorCode } from './tasks.errors';
import { TasksService } from './tasks.service';
import { Requires } from '../auth/permissions';

@ApiTags('tasks')
@ApiBearerAuth()
@Controller('api/v1/tasks')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Get()
  @Requires('read', 'view_tasks')
  @ApiOperation({ summary: 'Tasks, newest first (filter by state, framework, agent)' })
  @ApiOkResponse({ type: TaskPageDto })
  @ApiErrors()
  list(@Query() q: TaskListQueryDto, @CurrentActor() actor: Actor): Promise<TaskPageDto> {
    return this.tasks.list({ state: q.state, frameworkId: q.frameworkId, agentId: q.agentId }, q.limit, q.offset, actor);
  }

  @Get(':id')
  @Requires('read', 'view_tasks')
  @ApiOperation({ summary: 'One task with its state history' })
  @ApiOkResponse({ type: TaskDto })
  @ApiErrors(TasksErrorCode.TASK_NOT_FOUND)
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<TaskDto> {
    return this.tasks.get(id, actor);
  }
}
