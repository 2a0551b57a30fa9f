import { Controller, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { CommonErrorCode } from '../errors/errors.codes';
import { OnLeader } from '../leadership/on-leader';
import { ExplainDto, ExplainQueryDto, FrameworkDto, FrameworkListQueryDto, FrameworkPageDto } from './frameworks.dto';
import { FrameworkExplainService } from './framework-explain.service';
import { FrameworksErrorCode } from './frameworks.errors';
import { FrameworksService } from './frameworks.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';

@ApiTags('frameworks')
@ApiBearerAuth()
@Controller('api/v1/frameworks')
export class FrameworksController {
  constructor(private readonly frameworks: FrameworksService) {}

  @Get()
  @Coalesced()
  @Requires('read')
  @ApiOperation({ summary: 'List frameworks with their roles, tasks, offers and dominant share' })
  @ApiOkResponse({ type: FrameworkPageDto })
  @ApiErrors()
  list(@Query() q: FrameworkListQueryDto, @CurrentActor() actor: Actor): Promise<FrameworkPageDto> {
    return this.frameworks.list({ state: q.state, role: q.role }, q.limit, q.offset, actor);
  }

  @Get(':id')
  @Requires('read')
  @ApiOperation({ summary: 'One framework' })
  @ApiOkResponse({ type: FrameworkDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND)
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<FrameworkDto> {
    return this.frameworks.get(id, actor);
  }

  @Post(':id/teardown')
  @OnLeader()
  @Requires('operate', 'teardown_frameworks')
  @HttpCode(200)
  @ApiOperation({ summary: 'Tear the framework down: its tasks are killed and it cannot re-subscribe' })
  @ApiOkResponse({ type: FrameworkDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND, CommonErrorCode.NO_LEADER)
  teardown(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<FrameworkDto> {
    return this.frameworks.teardown(id, actor);
  }
}

@ApiTags('frameworks')
@ApiBearerAuth()
@Controller('api/v1/frameworks')
export class ExplainController {
  constructor(
    private readonly explainer: FrameworkExplainService,
    private readonly frameworks: FrameworksService,
  ) {}

  @Get(':id/explain')
  @Requires('read')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Why the framework got, or did not get, offers in recent cycles (plain words and data)' })
  @ApiOkResponse({ type: ExplainDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND)
  async explain(@Param('id') id: string, @Query() q: ExplainQueryDto, @CurrentActor() actor: Actor): Promise<ExplainDto> {
    // The view_frameworks ACL applies (and an unknown id answers 404 here).
    await this.frameworks.get(id, actor);
    return this.explainer.explain(id, q.cycles);
  }
}
