/**
 * Operator actions on agents: list, inspect, deactivate, reactivate, drain (Mesos's
 * DEACTIVATE_AGENT, REACTIVATE_AGENT and DRAIN_AGENT). Each change is one transaction with its
 * audit entry, announced once committed.
 */
import type { AuditAction } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { AgentOccupancyRepository } from '../master/agent-occupancy.repository';
import { AllocationUsageRepository } from '../master/allocation-usage.repository';
import { LiveView } from '../master/live-view';
import type { AclAction } from '../config/acls.rules';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import type { Page } from '../common/pagination.dto';
import { Database, type Tx } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../leadership/cluster-events';
import { type AgentEntity, AgentStatus, type DrainConfig, DrainState } from './agent.entity';
import { type AgentViewDto, toAgentDto, toAgentViews } from './agents.dto';
import { AgentsErrorCode } from './agents.errors';
import { ExecutorState } from '../executors/executor.entity';
import { ExecutorsService } from '../executors/executors.service';
import { type AgentFilter, type AgentSortField, AgentsRepository } from './agents.repository';

/** Executors listed on one agent's detail (the rest through GET /api/v1/executors). */
const MAX_DETAIL_EXECUTORS = 500;

@Injectable()
export class AgentsService {
  constructor(
    private readonly db: Database,
    private readonly repo: AgentsRepository,
    private readonly usage: AllocationUsageRepository,
    private readonly occupancy: AgentOccupancyRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
    private readonly acls: AclsService,
    private readonly executors: ExecutorsService,
    private readonly live: LiveView,
  ) {}

  async list(
    filter: AgentFilter,
    sort: { field: AgentSortField; descending: boolean },
    limit: number,
    offset: number,
    actor: Actor,
  ): Promise<Page<AgentViewDto>> {
    const page = await this.repo.list(
      this.db.manager,
      { ...filter, hosts: this.acls.hostScope(actor, 'view_agents') },
      sort,
      limit,
      offset,
    );
    return { items: await this.view(page.items), total: page.total, limit, offset };
  }

  /** One agent, only if the view_agents ACL lets the actor see its hostname (403 otherwise). */
  async get(id: string, actor: Actor): Promise<AgentViewDto> {
    const agent = await this.require(this.db.manager, id);
    await this.acls.authorize(actor, 'view_agents', agent.hostname, `view agent ${id}`);
    const [view, executors] = await Promise.all([
      this.view([agent]),
      this.executors.list({ agentId: id, state: ExecutorState.RUNNING }, MAX_DETAIL_EXECUTORS, 0, actor),
    ]);
    return Object.assign(view[0], { executors: executors.items });
  }

  /**
   * Agents with their usage (revocable resources from the live state), whitelist and maintenance
   * state; read in `tx` where the view must agree with what that transaction wrote.
   */
  async view(agents: AgentEntity[], tx: Tx = this.db.manager): Promise<AgentViewDto[]> {
    const [occupancy, revocable] = await Promise.all([this.occupancy.occupancy(tx, agents), this.live.revocable(agents.map((a) => a.id))]);
    return toAgentViews(agents, occupancy, revocable);
  }

  /** No new offers from the agent; its running tasks are left alone. Idempotent. */
  deactivate(id: string, actor: Actor): Promise<AgentViewDto> {
    return this.change(id, actor, 'agent.deactivate', ['deactivate_agents'], (agent) => {
      agent.activated = false;
    });
  }

  /** Offers from the agent again. Refused while it drains; a drained agent leaves the drain. */
  reactivate(id: string, actor: Actor): Promise<AgentViewDto> {
    return this.change(id, actor, 'agent.reactivate', ['deactivate_agents'], (agent) => {
      if (agent.drainState === DrainState.DRAINING) {
        throw new ArbiterException(
          AgentsErrorCode.AGENT_STILL_DRAINING,
          `agent ${agent.id} (${agent.hostname}) is still draining; reactivate it once it is DRAINED`,
          { agentId: agent.id },
        );
      }
      agent.activated = true;
      agent.drainState = null;
      agent.drainConfig = null;
      agent.drainStartedAt = null;
    });
  }

  /**
   * Deactivates the agent and drains it: the leader kills its tasks with the drain's grace
   * period (SIGTERM, then SIGKILL after it) and marks it DRAINED (GONE with markGone) once the
   * last has ended; with no live tasks it is DRAINED at once.
   */
  drain(id: string, config: DrainConfig, actor: Actor): Promise<AgentViewDto> {
    const acls: AclAction[] = config.markGone ? ['drain_agents', 'mark_agents_gone'] : ['drain_agents'];
    return this.change(id, actor, 'agent.drain', acls, async (agent, tx) => {
      if (agent.drainState) {
        throw new ArbiterException(
          AgentsErrorCode.AGENT_ALREADY_DRAINING,
          `agent ${agent.id} (${agent.hostname}) is already ${agent.drainState}; reactivate it before draining it again`,
          { agentId: agent.id, drainState: agent.drainState },
        );
      }
      const liveTasks = await this.usage.countLiveTasks(tx, agent.id);
      agent.activated = false;
      agent.drainConfig = config;
      agent.drainStartedAt = new Date();
      agent.drainState = liveTasks === 0 ? DrainState.DRAINED : DrainState.DRAINING;
      if (liveTasks === 0 && config.markGone) agent.status = AgentStatus.GONE;
    });
  }

  private async require(tx: Tx, id: string, lock = false): Promise<AgentEntity> {
    const agent = await this.repo.findById(tx, id, { lock });
    if (!agent)
      throw new ArbiterException(AgentsErrorCode.AGENT_NOT_FOUND, `no agent with id '${id}'; GET /api/v1/agents lists them`, {
        agentId: id,
      });
    return agent;
  }

  private async change(
    id: string,
    actor: Actor,
    action: AuditAction,
    acls: AclAction[],
    apply: (agent: AgentEntity, tx: Tx) => void | Promise<void>,
  ): Promise<AgentViewDto> {
    const target = await this.require(this.db.manager, id);
    for (const acl of acls) await this.acls.authorize(actor, acl, target.hostname, `${action.replace('agent.', '')} agent ${id}`);
    // The answer is read in the change's transaction: a drain answers the tasks it left to
    // kill, not what the leader (told once committed) has already killed.
    const answer = await this.db.transaction(async (tx) => {
      const agent = await this.require(tx, id, true);
      if (agent.status === AgentStatus.GONE) {
        throw new ArbiterException(
          AgentsErrorCode.AGENT_GONE,
          `agent ${agent.id} (${agent.hostname}) is marked gone and cannot be changed`,
          { agentId: agent.id },
        );
      }
      const before = toAgentDto(agent);
      await apply(agent, tx);
      const after = await this.repo.save(tx, agent);
      await this.audit.record(tx, actor, {
        action,
        targetType: 'agent',
        targetId: agent.id,
        before: pickState(before),
        after: pickState(toAgentDto(after)),
      });
      return (await this.view([after], tx))[0];
    });
    this.events.emit({ type: 'agent.updated', agentId: answer.id });
    return answer;
  }
}

/** The operator-controlled part of an agent, as the audit log records it. */
function pickState(a: ReturnType<typeof toAgentDto>) {
  return { hostname: a.hostname, status: a.status, activated: a.activated, drainState: a.drainState, drainConfig: a.drainConfig };
}
