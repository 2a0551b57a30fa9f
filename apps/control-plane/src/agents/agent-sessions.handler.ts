/**
 * Agent sessions in the master: registration (with the tasks the agent reports), heartbeats,
 * disconnection, loss after a timeout, and the agent's place in the allocator.
 */
import { randomUUID } from 'node:crypto';
import { Resources } from '@arbiter/allocator';
import {
  isTerminal as isTerminalTaskState,
  PROTOCOL_ERRORS,
  type RegisterAgent,
  type RegisterAgentReply,
  type UpdateAgent,
} from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AccessLog } from '../audit/access-log';
import { AuditService } from '../audit/audit.service';
import { type Actor, SYSTEM_ACTOR } from '../auth/auth.actor';
import { Database } from '../database/database.service';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { OperatorStream } from '../events/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentRuntime, ClusterState, sessionOf, taskKey, type AgentSocket } from '../kernel/cluster-state';
import { type Batch, Kernel, type Pending } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { MaintenanceSync } from '../maintenance/maintenance-sync.handler';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { type ReservationEntity } from '../reservations/reservation.entity';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { KILL_GRACE_SECONDS, Outbox } from '../master/outbox';
import { type TaskEntity, TaskState } from '../tasks/task.entity';
import { TasksRepository } from '../tasks/tasks.repository';
import { type AgentEntity, AgentStatus, DrainState } from './agent.entity';
import { AgentSessionsRepository } from './agent-sessions.repository';

/** The IP an agent connects from, IPv4 addresses without their IPv6 mapping ('::ffff:10.0.0.1' is 10.0.0.1). */
function ipOf(socket: AgentSocket): string | undefined {
  const address = socket.handshake.address as string | undefined;
  return address ? address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') : undefined;
}

export const AGENT_HEARTBEAT_SECONDS = 5;

interface Registration {
  socket: AgentSocket;
  msg: AgentRegistration;
  actor: Actor;
}

export type AgentRegistration = RegisterAgent & {
  tasks: NonNullable<RegisterAgent['tasks']>;
  attributes: NonNullable<RegisterAgent['attributes']>;
};

@Injectable()
export class AgentSessions {
  private readonly logger = new Logger('AgentSessions');
  private readonly registrations: Batch<Registration, RegisterAgentReply>;

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly agents: AgentSessionsRepository,
    private readonly tasks: TasksRepository,
    private readonly updates: TaskUpdates,
    private readonly offers: OfferRescinds,
    private readonly maintenance: MaintenanceSync,
    private readonly inverseOffers: InverseOffers,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly audit: AuditService,
    private readonly db: Database,
    private readonly outbox: Outbox,
  ) {
    this.registrations = kernel.batch('exclusive', (batch) => this.registerBatch(batch));
    maintenance.onDown((agentId) => this.shutDownForMaintenance(agentId));
    updates.onEnded((task) => {
      if (this.state.agents.get(task.agentId)?.draining)
        this.kernel
          .exclusive(() => this.drainProgress(task.agentId))
          .catch((err: unknown) => this.logger.error({ err, agentId: task.agentId }, 'finishing a drain failed'));
    });
  }

  /**
   * Registers an agent for the principal behind the socket: a new agent id becomes that
   * principal's; an agent id another principal registered is refused (AGENT_PRINCIPAL_MISMATCH),
   * as is a hostname the register_agents ACL does not allow. Refusals are audited.
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
    const admitted: Array<{ entry: Pending<Registration, RegisterAgentReply>; row: AgentEntity; isNew: boolean }> = [];
    for (const entry of batch) {
      try {
        admitted.push({ entry, ...(await this.admit(entry.item, known, now)) });
      } catch (err) {
        // A refusal is this registration's alone.
        entry.reject(err);
      }
    }
    if (!admitted.length) return;
    await this.agents.registerMany(admitted.map((a) => a.row));
    const agentIds = admitted.map((a) => a.row.id);
    const [live, reservations] = await Promise.all([this.tasks.liveOnAgents(agentIds), this.agents.reservationsOnAgents(agentIds)]);
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
      };
      this.state.agents.set(agent.id, runtime);
      sessionOf(socket).agentId = agent.id;

      await this.reconcileTasks(agent.id, msg.tasks, live.get(agent.id) ?? []);
      this.addToAllocatorWith(agent, true, reservations.get(agent.id) ?? []);
      await this.maintenance.applyToAgent(agent.id);
      if (this.maintenance.isDown(this.state.agents.get(agent.id) ?? agent))
        this.state.allocator.deactivateAgent(agent.id, { maintenance: true });
      // A drain that was under way goes on (after a restart or a reconnection).
      if (agent.drainState === DrainState.DRAINING) await this.drain(agent);
      if (isNew) {
        this.stream.emit('agent.added', { agentId: agent.id, hostname: agent.hostname, resources: agent.resources });
        created.push({ agent, actor: entry.item.actor });
      } else this.stream.emit('agent.updated', { agentId: agent.id });
    }
    if (created.length)
      await this.db.transaction(async (tx) => {
        for (const { agent, actor } of created) {
          await this.audit.record(
            tx,
            actor,
            {
              action: 'agent.register',
              targetType: 'agent',
              targetId: agent.id,
              before: null,
              after: { hostname: agent.hostname, resources: agent.resources, isolation: agent.isolation },
            },
            now,
          );
        }
      });
    this.loop.requestCycle();
    for (const { entry, row } of admitted) entry.resolve({ agentId: row.id, heartbeatIntervalSeconds: AGENT_HEARTBEAT_SECONDS });
  }

  /** Checks one registration and gives the row to save, or throws the refusal (audited). */
  private async admit(
    { socket, msg, actor }: Registration,
    known: ReadonlyMap<string, AgentEntity>,
    now: Date,
  ): Promise<{ row: AgentEntity; isNew: boolean }> {
    const ip = ipOf(socket);
    const resources = Resources.of(msg.resources).toJSON();
    if (!this.acls.allows(actor, 'register_agents', msg.hostname)) {
      await this.access.denied(actor, {
        what: 'register agent',
        reason: `ACL register_agents refuses agent '${msg.hostname}'`,
        targetType: 'agent',
        targetId: msg.agentId ?? null,
      });
      throw new ProtocolError(
        PROTOCOL_ERRORS.FORBIDDEN,
        `principal '${actor.name}' may not register agent '${msg.hostname}' (ACL register_agents)`,
      );
    }
    const row = msg.agentId ? known.get(msg.agentId) : undefined;
    if (row?.principal && row.principal !== actor.name) {
      await this.access.denied(actor, {
        what: 'register agent',
        reason: `agent id belongs to principal '${row.principal}'`,
        targetType: 'agent',
        targetId: row.id,
      });
      throw new ProtocolError(
        PROTOCOL_ERRORS.AGENT_PRINCIPAL_MISMATCH,
        `agent ${row.id} was registered by another principal; principal '${actor.name}' cannot register under its id`,
      );
    }
    if (row?.status === AgentStatus.GONE)
      throw new ProtocolError(PROTOCOL_ERRORS.AGENT_GONE, `agent ${row.id} was marked gone; start the agent with a fresh work directory`);
    if (this.maintenance.isDown({ hostname: msg.hostname, ip }))
      throw new ProtocolError(
        PROTOCOL_ERRORS.MACHINE_DOWN,
        `machine ${msg.hostname} (${ip ?? 'no IP'}) is down for maintenance; the agent may register once an operator stops it`,
      );
    const fields = {
      hostname: msg.hostname,
      address: msg.address ?? null,
      resources,
      attributes: msg.attributes,
      status: AgentStatus.REACHABLE,
      version: msg.version ?? null,
      lastSeenAt: now,
      principal: actor.name,
      isolation: msg.isolation
        ? {
            mode: msg.isolation.mode,
            controllers: msg.isolation.controllers ?? [],
            ...(msg.isolation.taskUser ? { taskUser: msg.isolation.taskUser } : {}),
            diskQuota: msg.isolation.diskQuota ?? false,
          }
        : null,
    };
    const agent: AgentEntity = row
      ? Object.assign(row, fields)
      : {
          ...fields,
          id: msg.agentId ?? randomUUID(),
          activated: true,
          drainState: null,
          drainConfig: null,
          drainStartedAt: null,
          firstSeenAt: now,
        };
    return { row: agent, isNew: !row };
  }

  /** An agent known from the database at start: in the allocator, inactive until it registers again. */
  async restore(agent: AgentEntity): Promise<void> {
    this.state.agents.set(agent.id, {
      id: agent.id,
      hostname: agent.hostname,
      attributes: agent.attributes,
      lastSeen: this.clock.now(),
      inAllocator: false,
      recovered: true,
    });
    await this.addToAllocator(agent, false);
  }

  /**
   * After a (re-)registration: tasks the database thinks run there but the agent does not
   * report are LOST; tasks the agent runs that nobody wants any more are killed.
   */
  private async reconcileTasks(agentId: string, reported: AgentRegistration['tasks'], live: TaskEntity[]): Promise<void> {
    const reportedKeys = new Set(reported.map((t) => taskKey(t.frameworkId, t.taskId)));
    const knownKeys = new Set(live.map((t) => taskKey(t.frameworkId, t.taskId)));
    // STAGING tasks may not have reached the agent yet; they are resent below.
    const missing = live.filter((t) => !reportedKeys.has(taskKey(t.frameworkId, t.taskId)) && t.state !== TaskState.STAGING);
    await this.updates.masterUpdate(missing, TaskState.LOST, 'REASON_AGENT_RESTARTED', 'the agent re-registered without this task');
    // Tasks out of contact (UNREACHABLE) that the agent reports take their real state again.
    const reportedStates = new Map(reported.map((t) => [taskKey(t.frameworkId, t.taskId), t.state]));
    for (const t of live) {
      const now = reportedStates.get(taskKey(t.frameworkId, t.taskId));
      if (t.state === TaskState.UNREACHABLE && now !== undefined && !isTerminalTaskState(now))
        await this.updates.masterUpdate([t], TaskState[now], 'REASON_AGENT_REREGISTERED', 'its agent is back in contact');
    }
    // A reported task in a terminal state has its last update on the way: nothing to do.
    this.outbox.kill(
      agentId,
      reported.filter((t) => !knownKeys.has(taskKey(t.frameworkId, t.taskId)) && !isTerminalTaskState(t.state)),
    );
    for (const t of live.filter((t) => t.state === TaskState.STAGING && !reportedKeys.has(taskKey(t.frameworkId, t.taskId)))) {
      this.updates.sendLaunch(agentId, t);
    }
  }

  heartbeat(socket: AgentSocket): void {
    const runtime = this.state.agentOf(socket);
    if (runtime) runtime.lastSeen = this.clock.now();
  }

  /**
   * An agent's resources changed while it runs (Mesos's UPDATE_SLAVE): recorded and audited, its
   * outstanding offers rescinded, and the allocator given the new total at once (tasks keep
   * running; a total below what they use leaves nothing to offer until they end). Refused while
   * the new total cannot hold the agent's reservations.
   */
  update(socket: AgentSocket, msg: UpdateAgent, actor: Actor): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.agentOf(socket);
      if (!runtime) throw new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, 'register before updating resources');
      runtime.lastSeen = this.clock.now();
      const row = await this.agents.find(runtime.id);
      if (!row) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_AGENT, `no agent ${runtime.id}`);
      const resources = Resources.of(msg.resources);
      const reservations = await this.agents.reservationsOn(row.id);
      const reserved = reservations.reduce((sum, r) => sum.plus(Resources.of(r.resources).withReservation(undefined)), Resources.empty());
      if (!resources.contains(reserved))
        throw new ProtocolError(
          PROTOCOL_ERRORS.RESOURCES_BELOW_RESERVATIONS,
          `the new resources (${resources.toString()}) cannot hold the reservations on this agent (${reserved.toString()}); unreserve first`,
          { reserved: reserved.toJSON() },
        );
      const before = { resources: row.resources, attributes: row.attributes };
      const change = { resources: resources.toJSON(), attributes: msg.attributes ?? row.attributes };
      if (Resources.of(row.resources).equals(resources) && JSON.stringify(before.attributes) === JSON.stringify(change.attributes)) return;
      const now = this.clock.date();
      await this.agents.updateTotal(row.id, change, (tx) =>
        this.audit.record(tx, actor, { action: 'agent.update', targetType: 'agent', targetId: row.id, before, after: change }, now),
      );
      runtime.attributes = change.attributes;
      await this.offers.onAgent(row.id, "the agent's resources changed");
      if (runtime.inAllocator) this.state.allocator.updateAgent(row.id, this.effectiveTotal(Object.assign(row, change), reservations));
      this.stream.emit('agent.updated', { agentId: row.id });
      this.loop.requestCycle();
    });
  }

  disconnected(socket: AgentSocket): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.agentOf(socket);
      if (!runtime) return;
      runtime.socket = undefined;
      if (runtime.inAllocator) this.state.allocator.deactivateAgent(runtime.id);
      await this.offers.onAgent(runtime.id, 'the agent disconnected');
      this.stream.emit('agent.updated', { agentId: runtime.id });
    });
  }

  /** Seconds of silence after which an agent is unreachable. */
  private timeoutOf(agent: AgentRuntime): number {
    return agent.recovered ? this.config.agentReregisterTimeout : this.config.agentTimeout;
  }

  private isSilent(agent: AgentRuntime): boolean {
    return agent.lastSeen <= this.clock.now() - this.timeoutOf(agent) * 1000;
  }

  /** Whether any agent has been silent past its timeout (checked without a turn in the serial order). */
  anySilent(): boolean {
    for (const a of this.state.agents.values()) if (this.isSilent(a)) return true;
    return false;
  }

  /** Agents silent past their timeout become unreachable: offers rescinded, tasks LOST. */
  checkSilent(): Promise<void> {
    return this.kernel.exclusive(async () => {
      for (const agent of [...this.state.agents.values()]) {
        // Heard from while earlier ones were removed: kept.
        if (!this.isSilent(agent)) continue;
        agent.socket?.disconnect(true);
        const reason = agent.recovered
          ? `not registered again within ${this.config.agentReregisterTimeout} s of the control plane's start`
          : `no heartbeat for ${this.config.agentTimeout} s`;
        await this.remove(agent.id, reason, TaskState.LOST, AgentStatus.UNREACHABLE, TaskState.UNREACHABLE);
      }
    });
  }

  /** Takes an agent out: offers rescinded, live tasks in `taskState`, out of the allocator. */
  async remove(
    agentId: string,
    reason: string,
    taskState: TaskState,
    status?: AgentStatus,
    partitionAwareState: TaskState = taskState,
  ): Promise<void> {
    const runtime = this.state.agents.get(agentId);
    await this.offers.onAgent(agentId, reason);
    this.inverseOffers.rescindOnAgent(agentId, reason);
    // Tasks already out of contact stay so (their agent may come back) unless the agent is gone.
    const live = (await this.tasks.live({ agentId })).filter(
      (t) => t.state !== TaskState.UNREACHABLE || partitionAwareState !== TaskState.UNREACHABLE,
    );
    await this.updates.masterUpdateByFramework(live, taskState, partitionAwareState, 'REASON_AGENT_REMOVED', `agent removed: ${reason}`);
    if (status) await this.agents.setStatus(agentId, status);
    if (runtime?.inAllocator) this.state.allocator.removeAgent(agentId);
    this.state.agents.delete(agentId);
    this.stream.emit('agent.removed', { agentId, reason });
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

  /**
   * Drains an agent (Mesos's DRAIN_AGENT): its tasks are killed with the drain's grace period
   * (SIGTERM, then SIGKILL after it; those not started yet are KILLED at once); once the last one
   * has ended the agent is DRAINED, or GONE with markGone (and refused from then on).
   */
  private async drain(agent: AgentEntity): Promise<void> {
    const runtime = this.state.agents.get(agent.id);
    if (!runtime) return;
    runtime.draining = { markGone: agent.drainConfig?.markGone ?? false };
    const grace = agent.drainConfig?.maxGracePeriodSeconds ?? KILL_GRACE_SECONDS;
    const notStarted: TaskEntity[] = [];
    const killed: TaskEntity[] = [];
    for (const t of this.state.liveTasks.onAgent(agent.id)) {
      if (runtime.socket && t.state !== TaskState.STAGING) killed.push(t);
      else if (t.state === TaskState.STAGING) notStarted.push(t);
    }
    await this.updates.killing(killed);
    this.outbox.kill(agent.id, killed, grace);
    this.logger.log({ agentId: agent.id, grace, markGone: runtime.draining.markGone }, 'draining the agent: its tasks are killed');
    if (notStarted.length) await this.updates.masterUpdate(notStarted, TaskState.KILLED, 'REASON_AGENT_DRAINING', 'the agent is draining');
    await this.drainProgress(agent.id);
  }

  /** A draining agent with no live task left is DRAINED (or GONE). */
  private async drainProgress(agentId: string): Promise<void> {
    const runtime = this.state.agents.get(agentId);
    if (!runtime?.draining) return;
    if (this.state.liveTasks.anyOnAgent(agentId)) return;
    const { markGone } = runtime.draining;
    runtime.draining = undefined;
    await this.agents.finishDrain(agentId, markGone);
    this.logger.log({ agentId, markGone }, markGone ? 'agent drained and marked gone' : 'agent drained');
    if (markGone) {
      runtime.socket?.disconnect(true);
      await this.remove(agentId, 'drained and marked gone', TaskState.LOST);
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
    await this.remove(agentId, 'its machine is down for maintenance', TaskState.LOST, AgentStatus.UNREACHABLE, TaskState.GONE_BY_OPERATOR);
    this.outbox.kill(socket, tasks);
    socket?.disconnect(true);
  }

  /** Records that the connected agents were seen (their rows' last_seen_at). */
  async recordSeen(): Promise<void> {
    await this.agents.recordSeen([...this.state.agents.values()].filter((a) => a.socket).map((a) => a.id));
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
      await this.remove(agent.id, 'the agent was marked gone', TaskState.LOST, undefined, TaskState.GONE_BY_OPERATOR);
      return;
    }
    const { allocator } = this.state;
    if (agent.drainState === DrainState.DRAINING) await this.drain(agent);
    const usable = agent.activated && !agent.drainState && runtime.socket !== undefined;
    if (options.resync || !usable)
      await this.offers.onAgent(agentId, options.resync ? "the agent's reservations changed" : 'the agent was deactivated');
    if (options.resync) {
      allocator.removeAgent(agentId);
      await this.addToAllocator(agent, runtime.socket !== undefined);
      await this.maintenance.applyToAgent(agent.id);
    } else if (usable && !this.maintenance.isDown(this.state.agents.get(agent.id) ?? agent)) allocator.activateAgent(agentId);
    else allocator.deactivateAgent(agentId, { maintenance: this.maintenance.isDown(this.state.agents.get(agent.id) ?? agent) });
  }

  /** Agent total with its reservations applied: unreserved minus reserved amounts, plus the reserved pieces. */
  private effectiveTotal(agent: AgentEntity, reservations: readonly ReservationEntity[]): Resources {
    let total = Resources.of(agent.resources);
    for (const r of reservations) {
      const reserved = Resources.of(r.resources);
      const unreserved = reserved.withReservation(undefined);
      if (total.contains(unreserved)) total = total.minus(unreserved).plus(reserved);
    }
    return total;
  }

  private async addToAllocator(agent: AgentEntity, activated: boolean): Promise<void> {
    this.addToAllocatorWith(agent, activated, await this.agents.reservationsOn(agent.id));
  }

  private addToAllocatorWith(agent: AgentEntity, activated: boolean, reservations: readonly ReservationEntity[]): void {
    const total = this.effectiveTotal(agent, reservations);
    // The live tasks as they are in memory right now (not as read before an await): a task's end
    // committed after this is recovered from the allocator, one committed before is not counted.
    const used: Array<{ frameworkId: string; role: string; resources: Resources }> = [];
    for (const t of this.state.liveTasks.onAgent(agent.id))
      if (this.state.frameworks.has(t.frameworkId))
        used.push({ frameworkId: t.frameworkId, role: t.role, resources: Resources.of(t.resources) });
    this.state.allocator.addAgent(agent.id, total, {
      hostname: agent.hostname,
      used,
      activated: activated && agent.activated && !agent.drainState,
    });
    this.state.unavailability.delete(agent.id);
    const runtime = this.state.agents.get(agent.id);
    if (runtime) runtime.inAllocator = true;
  }
}
