import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { AgentListQueryDto, AgentPageDto, AgentViewDto, DrainAgentDto } from './agents.dto';
import { AgentsErrorCode } from './agents.errors';
import type { AgentSortField } from './agents.repository';
import { AgentsService } from './agents.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';

@ApiTags('agents')
@ApiBearerAuth()
@Controller('api/v1/agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Get()
  @Coalesced()
  @Requires('read')
  @ApiOperation({ summary: 'List agents (filter, sort, paginate): only those whose hostname the view_agents ACL allows' })
  @ApiOkResponse({ type: AgentPageDto })
  @ApiErrors()
  async list(@Query() q: AgentListQueryDto, @CurrentActor() actor: Actor): Promise<AgentPageDto> {
    const sort = q.sort ?? 'hostname';
    return this.agents.list(
      {
        hostname: q.hostname,
        status: q.status,
        activated: q.activated === undefined ? undefined : q.activated === 'true',
        drainState: q.drainState,
      },
      { field: sort.replace(/^-/, '') as AgentSortField, descending: sort.startsWith('-') },
      q.limit,
      q.offset,
      actor,
    );
  }

  @Get(':id')
  @Requires('read')
  @ApiOperation({ summary: 'One agent (403 when the view_agents ACL refuses its hostname)' })
  @ApiOkResponse({ type: AgentViewDto })
  @ApiErrors(AgentsErrorCode.AGENT_NOT_FOUND)
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<AgentViewDto> {
    return this.agents.get(id, actor);
  }

  @Post(':id/deactivate')
  @Requires('operate', 'deactivate_agents')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop offering the agent (running tasks keep running)' })
  @ApiOkResponse({ type: AgentViewDto })
  @ApiErrors(AgentsErrorCode.AGENT_NOT_FOUND, AgentsErrorCode.AGENT_GONE)
  deactivate(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<AgentViewDto> {
    return this.agents.deactivate(id, actor);
  }

  @Post(':id/reactivate')
  @Requires('operate', 'deactivate_agents')
  @HttpCode(200)
  @ApiOperation({ summary: 'Offer the agent again (refused while it is draining)' })
  @ApiOkResponse({ type: AgentViewDto })
  @ApiErrors(AgentsErrorCode.AGENT_NOT_FOUND, AgentsErrorCode.AGENT_GONE, AgentsErrorCode.AGENT_STILL_DRAINING)
  reactivate(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<AgentViewDto> {
    return this.agents.reactivate(id, actor);
  }

  @Post(':id/drain')
  @Requires('operate', 'drain_agents')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivate the agent and drain its tasks (killed after the grace period)' })
  @ApiOkResponse({ type: AgentViewDto })
  @ApiErrors(AgentsErrorCode.AGENT_NOT_FOUND, AgentsErrorCode.AGENT_GONE, AgentsErrorCode.AGENT_ALREADY_DRAINING)
  drain(@Param('id') id: string, @Body() body: DrainAgentDto, @CurrentActor() actor: Actor): Promise<AgentViewDto> {
    return this.agents.drain(id, { maxGracePeriodSeconds: body.maxGracePeriodSeconds ?? null, markGone: body.markGone ?? false }, actor);
  }
}
