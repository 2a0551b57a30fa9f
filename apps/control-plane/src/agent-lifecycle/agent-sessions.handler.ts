/**
 * Agent registration in the master: registrations that arrive together are admitted, recorded
 * and placed in the allocator in one exclusive turn, with the tasks each agent reports
 * reconciled against the live ones. The rest of an agent's life in the master: its signs of
 * life (agent-liveness.handler.ts), its place in the allocator (agent-membership.handler.ts),
 * drain and maintenance (agent-drain.handler.ts) and its removal (agent-removal.handler.ts).
 */
import type { RegisterAgentReply } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import type { Actor } from '../auth/auth.actor';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { type AgentRuntime, ClusterState, sessionOf, type AgentSocket } from '../master/cluster-state';
import { agentHeartbeatSeconds, AgentRegistry, imagesRefusal } from '../master/agent-registry';
import { type Batch, Kernel, type Pending } from '../kernel/kernel';
import { MaintenanceSync } from './maintenance-sync.handler';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { TasksRepository } from '../tasks/tasks.repository';
import { type AgentEntity, DrainState } from '../agents/agent.entity';
import { AgentAdmission, type AgentRegistration, ipOf, type Registration } from './agent-admission';
import { AgentDrain } from './agent-drain.handler';
import { AgentMembership } from './agent-membership.handler';
import { AgentSessionsRepository } from './agent-sessions.repository';
import { Executors } from '../executors/executors.handler';

export type { AgentRegistration } from './agent-admission';

@Injectable()
export class AgentSessions {
  private readonly registrations: Batch<Registration, RegisterAgentReply>;

  constructor(
    kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: AgentRegistry,
    private readonly agents: AgentSessionsRepository,
    private readonly tasks: TasksRepository,
    private readonly updates: TaskUpdates,
    private readonly offers: OfferRescinds,
    private readonly admission: AgentAdmission,
    private readonly membership: AgentMembership,
    private readonly maintenance: MaintenanceSync,
    private readonly drain: AgentDrain,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly executors: Executors,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.registrations = kernel.batch('exclusive', (batch) => this.registerBatch(batch));
  }

  /**
   * Registers an agent for the principal behind the socket: a new agent id becomes that
   * principal's; an agent id another principal registered is refused (AGENT_PRINCIPAL_MISMATCH),
   * as is a hostname the register_agents ACL does not allow or another live agent holds
   * (AGENT_HOSTNAME_IN_USE). Refusals are audited.
   * Registrations that arrive together (every agent of a cluster after a failover) are handled
   * in one exclusive turn with one read and one write for all of them.
   */
  register(socket: AgentSocket, msg: AgentRegistration, actor: Actor): Promise<RegisterAgentReply> {
    return this.registrations.push({ socket, msg, actor });
  }

  private async registerBatch(batch: Array<Pending<Registration, RegisterAgentReply>>): Promise<void> {
    const now = this.clock.date();
    const ids = batch.flatMap((b) => (b.item.msg.agentId ? [b.item.msg.agentId] : []));
    const known = new Map((await this.agents.findMany(ids)).map((a) => [a.id, a]));
    const held = new Map<string, string>();
    for (const a of this.state.agents.values()) if (a.socket?.connected) held.set(a.hostname, a.id);
    const admitted: Array<{ entry: Pending<Registration, RegisterAgentReply>; row: AgentEntity; isNew: boolean }> = [];
    for (const entry of batch) {
      try {
        const admission = await this.admission.admit(entry.item, known, held, now);
        // The first of one batch to name a hostname holds it for the rest of the batch.
        held.set(admission.row.hostname, admission.row.id);
        admitted.push({ entry, ...admission });
      } catch (err) {
        // A refusal is this registration's alone.
        entry.reject(err);
      }
    }
    if (!admitted.length) return;
    await this.agents.registerMany(admitted.map((a) => a.row));
    const agentIds = admitted.map((a) => a.row.id);
    const [live, reservations, volumes] = await Promise.all([
      this.tasks.liveOnAgents(agentIds),
      this.agents.reservationsOnAgents(agentIds),
      this.agents.volumesOnAgents(agentIds),
    ]);
    const created: Array<{ agent: AgentEntity; actor: Actor }> = [];
    for (const { entry, row: agent, isNew } of admitted) {
      const { socket, msg } = entry.item;
      // Replace an older connection of the same agent.
      const previous = this.state.agents.get(agent.id);
      if (previous?.socket && previous.socket.id !== socket.id) previous.socket.disconnect(true);
      if (previous?.inAllocator) {
        await this.offers.onAgent(agent.id, 'the agent re-registered');
        this.state.allocator.removeAgent(agent.id);
      }
      const runtime: AgentRuntime = {
        id: agent.id,
        hostname: agent.hostname,
        attributes: agent.attributes,
        socket,
        ip: ipOf(socket),
        lastSeen: this.clock.now(),
        inAllocator: false,
        // Recorded with the registration: heartbeats record only changes.
        ...(msg.health ? { health: JSON.stringify(msg.health) } : {}),
        ...imagesRefusal(agent.capabilities ?? null),
      };
      this.registry.put(runtime);
      sessionOf(socket).agentId = agent.id;

      const resent = await this.updates.reconcileAgent(agent.id, msg.tasks, live.get(agent.id) ?? []);
      // Before the agent joins the allocator, which counts the executors that still run (or
      // start again with the tasks sent again).
      this.executors.reconcileAgent(agent.id, msg.executors ?? [], resent);
      this.membership.addWith(agent, true, reservations.get(agent.id) ?? [], volumes.get(agent.id) ?? []);
      await this.maintenance.applyToAgent(agent.id);
      if (this.maintenance.isDown(this.state.agents.get(agent.id) ?? agent))
        this.state.allocator.deactivateAgent(agent.id, { maintenance: true });
      // A drain that was under way goes on (after a restart or a reconnection).
      if (agent.drainState === DrainState.DRAINING) await this.drain.drain(agent);
      if (isNew) {
        this.stream.emit('agent.added', {
          agentId: agent.id,
          hostname: agent.hostname,
          resources: agent.resources,
          address: agent.address,
          attributes: agent.attributes,
          version: agent.version,
          activated: agent.activated,
          registeredAt: new Date(agent.firstSeenAt).toISOString(),
        });
        created.push({ agent, actor: entry.item.actor });
      } else this.stream.emit('agent.updated', { agentId: agent.id });
    }
    await this.admission.recordRegistered(created, now);
    this.loop.requestCycle();
    const heartbeatIntervalSeconds = agentHeartbeatSeconds(this.config.agentTimeout);
    for (const { entry, row } of admitted) entry.resolve({ agentId: row.id, heartbeatIntervalSeconds });
  }
}
