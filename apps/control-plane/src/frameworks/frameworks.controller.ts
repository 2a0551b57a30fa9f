import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import {
  FrameworkDto,
  FrameworkListQueryDto,
  FrameworkPageDto,
  OfferListQueryDto,
  OfferPageDto,
  TaskDto,
  TaskListQueryDto,
  TaskPageDto,
} from './frameworks.dto';
import { FrameworksErrorCode } from './frameworks.errors';
import { FrameworksService } from './frameworks.service';

@ApiTags('frameworks')
@ApiBearerAuth()
@Controller('api/v1/frameworks')
export class FrameworksController {
  constructor(private readonly frameworks: FrameworksService) {}

  @Get()
  @ApiOperation({ summary: 'List frameworks with their roles, tasks, offers and dominant share' })
  @ApiOkResponse({ type: FrameworkPageDto })
  @ApiErrors()
  list(@Query() q: FrameworkListQueryDto): Promise<FrameworkPageDto> {
    return this.frameworks.list({ state: q.state, role: q.role }, q.limit, q.offset);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One framework' })
  @ApiOkResponse({ type: FrameworkDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND)
  get(@Param('id') id: string): Promise<FrameworkDto> {
    return this.frameworks.get(id);
  }

  @Post(':id/teardown')
  @HttpCode(200)
  @ApiOperation({ summary: 'Tear the framework down: its tasks are killed and it cannot re-subscribe' })
  @ApiOkResponse({ type: FrameworkDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND)
  teardown(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<FrameworkDto> {
    return this.frameworks.teardown(id, actor);
  }
}

@ApiTags('offers')
@ApiBearerAuth()
@Controller('api/v1/offers')
export class OffersController {
  constructor(private readonly frameworks: FrameworksService) {}

  @Get()
  @ApiOperation({ summary: 'Offers, newest first (filter by state, framework, agent)' })
  @ApiOkResponse({ type: OfferPageDto })
  @ApiErrors()
  list(@Query() q: OfferListQueryDto): Promise<OfferPageDto> {
    return this.frameworks.offers({ state: q.state, frameworkId: q.frameworkId, agentId: q.agentId }, q.limit, q.offset);
  }
}

@ApiTags('tasks')
@ApiBearerAuth()
@Controller('api/v1/tasks')
export class TasksController {
  constructor(private readonly frameworks: FrameworksService) {}

  @Get()
  @ApiOperation({ summary: 'Tasks, newest first (filter by state, framework, agent)' })
  @ApiOkResponse({ type: TaskPageDto })
  @ApiErrors()
  list(@Query() q: TaskListQueryDto): Promise<TaskPageDto> {
    return this.frameworks.tasks({ state: q.state, frameworkId: q.frameworkId, agentId: q.agentId }, q.limit, q.offset);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One task with its state history' })
  @ApiOkResponse({ type: TaskDto })
  @ApiErrors(FrameworksErrorCode.TASK_NOT_FOUND)
  get(@Param('id') id: string): Promise<TaskDto> {
    return this.frameworks.task(id);
  }
}
