import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { CommonErrorCode } from '../errors/errors.codes';
import { OnLeader } from '../leadership/on-leader';
import { KillTaskDto, TaskDto, TaskListQueryDto, TaskPageDto } from './tasks.dto';
import { TasksErrorCode } from './tasks.errors';
import { TasksService } from './tasks.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';

@ApiTags('tasks')
@ApiBearerAuth()
@Controller('api/v1/tasks')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Get()
  @Coalesced()
  @Requires('read', 'view_tasks')
  @ApiOperation({ summary: 'Tasks, newest first (filter by state, framework, agent, reason, last update)' })
  @ApiOkResponse({ type: TaskPageDto })
  @ApiErrors()
  list(@Query() q: TaskListQueryDto, @CurrentActor() actor: Actor): Promise<TaskPageDto> {
    const filter = { state: q.state, frameworkId: q.frameworkId, agentId: q.agentId, reason: q.reason, updatedSince: q.updatedSince };
    return this.tasks.list(filter, q.limit, q.offset, actor);
  }

  @Get(':id')
  @Requires('read', 'view_tasks')
  @ApiOperation({ summary: 'One task with its state history' })
  @ApiOkResponse({ type: TaskDto })
  @ApiErrors(TasksErrorCode.TASK_NOT_FOUND)
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<TaskDto> {
    return this.tasks.get(id, actor);
  }

  @Post(':id/kill')
  @OnLeader()
  @HttpCode(200)
  @Requires('operate', 'teardown_frameworks')
  @ApiOperation({
    summary:
      "Kill a task: SIGTERM, then SIGKILL after the grace period (default 5 s); its framework gets KILLED (audited; needs the teardown_frameworks ACL on the framework's principal)",
  })
  @ApiOkResponse({ type: TaskDto })
  @ApiErrors(TasksErrorCode.TASK_NOT_FOUND, CommonErrorCode.NO_LEADER)
  kill(@Param('id') id: string, @Body() body: KillTaskDto, @CurrentActor() actor: Actor): Promise<TaskDto> {
    return this.tasks.kill(id, body.gracePeriodSeconds, actor);
  }
}
