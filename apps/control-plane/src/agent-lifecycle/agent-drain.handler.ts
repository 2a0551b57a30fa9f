/**
 * Operator changes to a registered agent in the allocator: deactivation, drain (its tasks
 * killed, then DRAINED or GONE), marked gone, reservations changed; and the shutdown of an agent
 * whose machine goes DOWN for maintenance.
 */
import { Injectable, Logger } from '@nestjs/common';
import { OperatorStream } from '../realtime/operator-stream';
import { ClusterState } from '../master/cluster-state';
import { AgentRegistry } from '../master/agent-registry';
import { Kernel } from '../kernel/kernel';
import { KILL_GRACE_SECONDS, Outbox } from '../master/outbox';
import { MaintenanceSync } from './maintenance-sync.handler';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { type TaskEntity, TaskState } from '../tasks/task.entity';
import { type AgentEntity, AgentStatus, DrainState } from '../agents/agent.entity';
import { AgentMembership } from './agent-membership.handler';
import { AgentRemoval } from './agent-removal.handler';
import { AgentSessionsRepository } from './agent-sessions.repository';

@Injectable()
export class AgentDrain {
  private readonly logger = new Logger('AgentDrain');

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: AgentRegistry,
    private readonly agents: AgentSessionsRepository,
    private readonly updates: TaskUpdates,
    private readonly offers: OfferRescinds,
    private readonly maintenance: MaintenanceSync,
    private readonly membership: AgentMembership,
    private readonly removal: AgentRemoval,
    private readonly outbox: Outbox,
    private readonly stream: OperatorStream,
  ) {
    maintenance.onDown((agentId) => this.shutDownForMaintenance(agentId));
    updates.onEnded((task) => {
      if (this.state.agents.get(task.agentId)?.draining)
        this.kernel
          .exclusive(() => this.drainProgress(task.agentId))
          .catch((err: unknown) => this.logger.error({ err, agentId: task.agentId }, 'finishing a drain failed'));
    });
  }

  /**
   * Drains an agent (Mesos's DRAIN_AGENT): its tasks are killed with the drain's grace period, or
   * their kill policy's when shorter (SIGTERM, then SIGKILL after it; those not started yet are
   * KILLED at once); once the last one has ended the agent is DRAINED, or GONE with markGone (and
   * refused from then on).
   */
  async drain(agent: AgentEntity): Promise<void> {
    const runtime = this.state.agents.get(agent.id);
    if (!runtime) return;
    const markGone = agent.drainConfig?.markGone ?? false;
    this.registry.drainStarted(agent.id, markGone);
    // The drain's grace period; a task's own kill policy when shorter (max_grace_period caps it, as in Mesos).
    const max = agent.drainConfig?.maxGracePeriodSeconds;
    const graceOf = (t: TaskEntity) =>
      Math.min(t.killGracePeriodSeconds ?? Infinity, max ?? t.killGracePeriodSeconds ?? KILL_GRACE_SECONDS);
    const notStarted: TaskEntity[] = [];
    const killed: TaskEntity[] = [];
    for (const t of this.state.liveTasks.onAgent(agent.id)) {
      if (runtime.socket && t.state !== TaskState.STAGING) killed.push(t);
      else if (t.state === TaskState.STAGING) notStarted.push(t);
    }
    await this.updates.killing(killed);
    for (const t of killed) this.outbox.kill(agent.id, [t], graceOf(t));
    this.logger.log({ agentId: agent.id, maxGracePeriodSeconds: max ?? null, markGone }, 'draining the agent: its tasks are killed');
    if (notStarted.length) await this.updates.masterUpdate(notStarted, TaskState.KILLED, 'REASON_AGENT_DRAINING', 'the agent is draining');
    await this.drainProgress(agent.id);
  }

  /** A draining agent with no live task left is DRAINED (or GONE). */
  private async drainProgress(agentId: string): Promise<void> {
    const runtime = this.state.agents.get(agentId);
    if (!runtime?.draining) return;
    if (this.state.liveTasks.anyOnAgent(agentId)) return;
    const { markGone } = runtime.draining;
    this.registry.drainEnded(agentId);
    await this.agents.finishDrain(agentId, markGone);
    this.logger.log({ agentId, markGone }, markGone ? 'agent drained and marked gone' : 'agent drained');
    if (markGone) {
      runtime.socket?.disconnect(true);
      await this.removal.remove(agentId, 'drained and marked gone', TaskState.LOST);
    } else this.stream.emit('agent.updated', { agentId });
  }

  /**
   * Its machine went DOWN for maintenance (Mesos's maintenance start): the agent is told to kill
   * its tasks and is disconnected, its tasks are LOST (REASON_AGENT_REMOVED), and it is refused
   * until the machine is up again.
   */
  private async shutDownForMaintenance(agentId: string): Promise<void> {
    const runtime = this.state.agents.get(agentId);
    if (!runtime) return;
    const socket = runtime.socket;
    const tasks = [...this.state.liveTasks.onAgent(agentId)];
    // Their end is the master's (LOST) before the agent is told to kill them, so the agent's own
    // reports of the kills, arriving after, change nothing.
    await this.removal.remove(
      agentId,
      'its machine is down for maintenance',
      TaskState.LOST,
      AgentStatus.UNREACHABLE,
      TaskState.GONE_BY_OPERATOR,
    );
    this.outbox.kill(socket, tasks);
    socket?.disconnect(true);
  }

  /**
   * Brings the allocator's view of one agent in line with its row: activation and drain; with
   * `resync` also its total (reservations), after rescinding its outstanding offers.
   */
  async refresh(agentId: string, options: { resync?: boolean } = {}): Promise<void> {
    const agent = await this.agents.find(agentId);
    const runtime = this.state.agents.get(agentId);
    if (!agent || !runtime?.inAllocator) return;
    if (agent.status === AgentStatus.GONE) {
      await this.removal.remove(agent.id, 'the agent was marked gone', TaskState.LOST, undefined, TaskState.GONE_BY_OPERATOR);
      return;
    }
    const { allocator } = this.state;
    if (agent.drainState === DrainState.DRAINING) await this.drain(agent);
    const usable = agent.activated && !agent.drainState && runtime.socket !== undefined;
    if (options.resync || !usable)
      await this.offers.onAgent(agentId, options.resync ? "the agent's reservations changed" : 'the agent was deactivated');
    if (options.resync) {
      await this.membership.replace(agent, runtime.socket !== undefined);
      await this.maintenance.applyToAgent(agent.id);
    } else if (usable && !this.maintenance.isDown(this.state.agents.get(agent.id) ?? agent)) allocator.activateAgent(agentId);
    else allocator.deactivateAgent(agentId, { maintenance: this.maintenance.isDown(this.state.agents.get(agent.id) ?? agent) });
    // Operators watching (the dashboard, `arbiter agents list --follow`) see the change.
    this.stream.emit('agent.updated', { agentId });
  }
}
