/**
 * Taking an agent out of the master (unreachable, drained and gone, down for maintenance): its
 * offers and inverse offers rescinded, its live tasks ended, out of the allocator, the
 * frameworks told, audited.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { AuditService } from '../audit/audit.service';
import { SYSTEM_ACTOR } from '../auth/auth.actor';
import { Database } from '../database/database.service';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState } from '../master/cluster-state';
import { AgentRegistry } from '../master/agent-registry';
import { Outbox } from '../master/outbox';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { TaskState } from '../tasks/task.entity';
import { TasksRepository } from '../tasks/tasks.repository';
import type { AgentStatus } from '../agents/agent.entity';
import { AgentSessionsRepository } from './agent-sessions.repository';
import { Executors } from '../executors/executors.handler';

@Injectable()
export class AgentRemoval {
  private readonly logger = new Logger('AgentRemoval');

  constructor(
    private readonly state: ClusterState,
    private readonly registry: AgentRegistry,
    private readonly agents: AgentSessionsRepository,
    private readonly tasks: TasksRepository,
    private readonly updates: TaskUpdates,
    private readonly offers: OfferRescinds,
    private readonly inverseOffers: InverseOffers,
    private readonly outbox: Outbox,
    private readonly stream: OperatorStream,
    private readonly audit: AuditService,
    private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly executors: Executors,
  ) {}

  /** Takes an agent out: offers rescinded, live tasks in `taskState`, out of the allocator. */
  async remove(
    agentId: string,
    reason: string,
    taskState: TaskState,
    status?: AgentStatus,
    partitionAwareState: TaskState = taskState,
  ): Promise<void> {
    const runtime = this.state.agents.get(agentId);
    // The agent's new status is stored before anyone hears of its tasks' end (as Mesos's master
    // marks an agent unreachable in its registry first): whoever reads the agent after a task's
    // LOST or UNREACHABLE update sees why.
    if (status) await this.agents.setStatus(agentId, status);
    await this.offers.onAgent(agentId, reason);
    this.inverseOffers.rescindOnAgent(agentId, reason);
    // Tasks already out of contact stay so (their agent may come back) unless the agent is gone.
    const live = (await this.tasks.live({ agentId })).filter(
      (t) => t.state !== TaskState.UNREACHABLE || partitionAwareState !== TaskState.UNREACHABLE,
    );
    await this.updates.masterUpdateByFramework(live, taskState, partitionAwareState, 'REASON_AGENT_REMOVED', `agent removed: ${reason}`);
    this.executors.agentRemoved(agentId, reason);
    if (runtime?.inAllocator) this.state.allocator.removeAgent(agentId);
    this.registry.remove(agentId);
    this.stream.emit('agent.removed', { agentId, reason, ...(runtime ? { hostname: runtime.hostname } : {}) });
    this.outbox.agentLost(agentId, reason);
    this.logger.warn({ agentId, reason }, 'agent removed');
    const now = this.clock.date();
    await this.db.transaction((tx) =>
      this.audit.record(
        tx,
        SYSTEM_ACTOR,
        {
          action: 'agent.remove',
          targetType: 'agent',
          targetId: agentId,
          before: null,
          after: { reason, tasks: taskState, lostTasks: live.length },
        },
        now,
      ),
    );
  }
}
