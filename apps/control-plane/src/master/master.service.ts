/**
 * The master: the allocator's state kept in step with Postgres and with the connected agents
 * and frameworks, the allocation loop, and every protocol call of /agents and /frameworks.
 *
 * Every state change runs through one serial queue (as through Mesos's master actor), so the
 * allocator, the outstanding offers and the database never see two changes interleaved. A
 * change is committed to Postgres before anyone is told about it.
 *
 * Under load the frequent calls are group-committed (answers to offers, status updates,
 * acknowledgements: one statement per batch), and the writes of cycles and of answers to offers
 * go through an ordered journal that the queue does not wait for; whoever they concern is told
 * once they have committed (see `journal`).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource, type EntityManager, In, Not } from 'typeorm';
import { HierarchicalAllocator, type Offer as AllocatorOffer, Resources } from '@arbiter/allocator';
import {
  type Accept,
  type Acknowledge,
  type AcceptReply,
  type Decline,
  type InverseOfferAnswer,
  type Kill,
  type LaunchTask,
  type Offer,
  type Reconcile,
  type RegisterAgentReply,
  type ResourceEntry,
  type RolesCall,
  type StatusUpdate,
  type SubscribeReply,
  type TaskSpec,
  type TaskState as WireTaskState,
  PROTOCOL_ERRORS,
  type RegisterAgent,
  type Subscribe,
} from '@arbiter/contracts';
import type { Socket } from 'socket.io';
import { AgentEntity, AgentStatus } from '../agents/agent.entity';
import { ShareClientKind } from '../allocation/allocation-share.entity';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { type ClusterEvent, ClusterEvents } from '../events/cluster-events';
import { FrameworkEntity, FrameworkState } from '../frameworks/framework.entity';
import { InverseOfferResponseEntity, InverseOfferStatus } from '../maintenance/inverse-offer-response.entity';
import { MachineMode, MaintenanceMachineEntity } from '../maintenance/maintenance-machine.entity';
import { MaintenanceWindowEntity } from '../maintenance/maintenance-window.entity';
import { OfferEntity, OfferState } from '../offers/offer.entity';
import { CLOSE_OFFERS, closeOffers, rescindAllOutstandingOffers } from '../offers/offer-storage';
import { ReservationEntity } from '../reservations/reservation.entity';
import { QuotaEntity } from '../roles/quota.entity';
import { RoleEntity } from '../roles/role.entity';
import { TaskEntity, TaskState, TERMINAL_TASK_STATES, TERMINAL_TASK_STATES_SQL } from '../tasks/task.entity';
import { WhitelistEntity } from '../whitelist/whitelist.entity';
import {
  type AgentRuntime,
  type FrameworkRuntime,
  LiveTasks,
  type OutstandingInverseOffer,
  type OutstandingOffer,
  taskKey,
} from './master.state';
import { OperatorStream } from './operator-stream';
import { GroupCommit, type Pending } from './group-commit';
import { Journal } from './journal';
import { SerialQueue } from './serial';

/** A protocol failure answered to the caller as `{ ok: false, error }`. */
export class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const AGENT_HEARTBEAT_SECONDS = 5;
export const FRAMEWORK_HEARTBEAT_SECONDS = 15;
/** Default refuse_seconds of an accept's unused resources and of a decline (as Mesos). */
export const DEFAULT_REFUSE_SECONDS = 5;
/** Unacknowledged status updates are sent again this often. */
const UPDATE_RETRY_MS = 5_000;
/** A cycle with no offers is still recorded this often, so history and "explain" stay current. */
const IDLE_CYCLE_RECORD_MS = 30_000;
/** Pruned per statement: cycles (each with its shares and a trace), offers, and ended tasks (each with its status updates). */
const PRUNE_BATCH_CYCLES = 100;
const PRUNE_BATCH_OFFERS = 5_000;
const PRUNE_BATCH_TASKS = 2_000;
const KILL_GRACE_SECONDS = 5;

const isTerminal = (s: TaskState) => TERMINAL_TASK_STATES.includes(s);

/** An accept checked against its offers, not yet written. */
interface PlannedAccept {
  fw: FrameworkRuntime;
  offers: OutstandingOffer[];
  agentId: string;
  /** What is left of the offers per role once the tasks have their share. */
  pool: Map<string, Resources>;
  tasks: Array<{ spec: TaskSpec; role: string }>;
  /** Filter for the unused (or declined) resources. */
  refuseSeconds: number;
  /** A decline: its offers return to the allocator whole. */
  declined?: boolean;
}

/** An accept or a decline, as it arrived. */
type OfferAnswer = { socket: Socket } & ({ accept: Accept; decline?: undefined } | { decline: Decline; accept?: undefined });

@Injectable()
export class Master implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Master');
  private readonly queue = new SerialQueue();
  private readonly started = performance.now();
  private allocator!: HierarchicalAllocator;
  readonly agents = new Map<string, AgentRuntime>();
  readonly frameworks = new Map<string, FrameworkRuntime>();
  readonly offers = new Map<string, OutstandingOffer>();
  private readonly inverseOffers = new Map<string, OutstandingInverseOffer>();
  private readonly timers: NodeJS.Timeout[] = [];
  private cycleScheduled = false;
  private lastRecordedCycle = 0;
  private lastTraceKey = '';
  private stopping = false;
  private unsubscribe?: () => void;
  /** Cycles run since start (for tests and metrics). */
  cycles = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly events: ClusterEvents,
    private readonly stream: OperatorStream,
  ) {}

  /**
   * Database writes which the serial queue need not wait for: a cycle's offers, the answers to
   * offers and status updates are written here while the queue goes on, and whoever they concern
   * is told once they have committed. Work that reads what such writes change runs exclusive.
   * Lanes, so that what a task waits for is not written behind what nobody waits for:
   * `launches` (accepts: offers closed and tasks inserted), `statuses` (updates of tasks
   * launched) and `background` (a cycle's offers; offers rescinded, which may be a cycle's still
   * being written; offers declined; acknowledgements). An answer only ever closes an offer that was sent, so
   * written, and a status update is only ever of a task launched, so written: neither needs a
   * common lane with what it follows. Writes of one kind that wait for their lane go out together.
   */
  private readonly journal = new Journal<'launches' | 'statuses' | 'background'>();

  /** Runs in the serial queue once every write handed to the journal has committed. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      await this.journal.settled();
      return work();
    });
  }

  /** Seconds on the allocator's clock (monotonic, from the start of this process). */
  private now(): number {
    return (performance.now() - this.started) / 1000;
  }

  // ------------------------------------------------------------------ lifecycle

  async onApplicationBootstrap(): Promise<void> {
    await this.exclusive(() => this.rebuild());
    this.unsubscribe = this.events.subscribe(
      (e) => void this.exclusive(() => this.onClusterEvent(e)).catch((err) => this.logger.error({ err }, 'cluster event')),
    );
    const every = (ms: number, fn: () => Promise<unknown> | void) => {
      const t = setInterval(() => {
        if (!this.stopping) void Promise.resolve(fn()).catch((err) => this.logger.error({ err }, 'periodic task failed'));
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.config.allocationInterval * 1000, () => this.requestCycle(0));
    // Only when there is something to do: an exclusive turn waits for the journal.
    every(1000, () => (this.silentAgents().length ? this.exclusive(() => this.checkAgents()) : undefined));
    every(1000, () => (this.config.offerTimeout ? this.exclusive(() => this.expireOffers()) : undefined));
    every(UPDATE_RETRY_MS, () => this.resendUnacknowledged());
    every(AGENT_HEARTBEAT_SECONDS * 1000, () => this.recordAgentsSeen());
    every(FRAMEWORK_HEARTBEAT_SECONDS * 1000, () => {
      for (const fw of this.frameworks.values()) fw.socket?.emit('heartbeat', { at: new Date().toISOString() });
    });
    every(60_000, () => this.pruneHistory());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearInterval(t);
    for (const fw of this.frameworks.values()) if (fw.failoverTimer) clearTimeout(fw.failoverTimer);
    // Let the work in flight finish before the database goes.
    await this.exclusive(async () => undefined);
  }

  /**
   * The allocator's state from Postgres: roles, quotas, whitelist, frameworks (inactive until
   * they re-subscribe), agents (inactive until they re-register) with their tasks' resources.
   * Offers outstanding before a restart are rescinded: frameworks get new ones.
   */
  private async rebuild(): Promise<void> {
    const db = this.dataSource.manager;
    this.allocator = new HierarchicalAllocator({
      clock: { now: () => this.now() },
      config: { allocationIntervalSeconds: this.config.allocationInterval },
    });
    await rescindAllOutstandingOffers(db, new Date());
    for (const role of await db.find(RoleEntity)) if (role.weight !== 1) this.allocator.setWeight(role.path, role.weight);
    for (const q of await db.find(QuotaEntity)) this.applyQuota(q);
    const whitelist = await db.findOne(WhitelistEntity, { where: { id: 1 } });
    this.allocator.updateWhitelist(whitelist?.hostnames ?? null);

    const frameworks = await db.find(FrameworkEntity, { where: { state: Not(FrameworkState.COMPLETED) } });
    for (const fw of frameworks) {
      this.allocator.addFramework(fw.id, fw.roles, { capabilities: fw.capabilities, active: false, suppressedRoles: fw.suppressedRoles });
      const runtime: FrameworkRuntime = {
        id: fw.id,
        name: fw.name,
        roles: fw.roles,
        capabilities: fw.capabilities,
        failoverTimeoutSeconds: fw.failoverTimeoutSeconds,
      };
      this.frameworks.set(fw.id, runtime);
      if (fw.state === FrameworkState.ACTIVE)
        await db.update(FrameworkEntity, { id: fw.id }, { state: FrameworkState.DISCONNECTED, disconnectedAt: new Date() });
      this.startFailover(runtime);
    }

    this.liveTasks.clear();
    for (const t of await db.find(TaskEntity, { where: { state: Not(In([...TERMINAL_TASK_STATES])) } })) this.liveTasks.add(t);

    const agents = await db.find(AgentEntity, { where: { status: AgentStatus.REACHABLE } });
    for (const agent of agents) {
      this.agents.set(agent.id, {
        id: agent.id,
        hostname: agent.hostname,
        attributes: agent.attributes,
        lastSeen: performance.now(),
        inAllocator: false,
        recovered: true,
      });
      await this.addAgentToAllocator(db, agent, false);
    }
    await this.applyMaintenance(db);
    this.logger.log({ frameworks: frameworks.length, agents: agents.length }, 'allocator state rebuilt from the database');
  }

  /** Agent total with its reservations applied: unreserved minus reserved amounts, plus the reserved pieces. */
  private async effectiveTotal(tx: EntityManager, agent: AgentEntity): Promise<Resources> {
    let total = Resources.of(agent.resources);
    for (const r of await tx.find(ReservationEntity, { where: { agentId: agent.id } })) {
      const reserved = Resources.of(r.resources);
      const unreserved = reserved.withReservation(undefined);
      if (total.contains(unreserved)) total = total.minus(unreserved).plus(reserved);
    }
    return total;
  }

  private async addAgentToAllocator(tx: EntityManager, agent: AgentEntity, activated: boolean): Promise<void> {
    const total = await this.effectiveTotal(tx, agent);
    // The live tasks as they are in memory right now (not as read before an await): a task's end
    // committed after this is recovered from the allocator, one committed before is not counted.
    const used: Array<{ frameworkId: string; role: string; resources: Resources }> = [];
    for (const t of this.liveTasks.onAgent(agent.id))
      if (this.frameworks.has(t.frameworkId)) used.push({ frameworkId: t.frameworkId, role: t.role, resources: Resources.of(t.resources) });
    this.allocator.addAgent(agent.id, total, {
      hostname: agent.hostname,
      used,
      activated: activated && agent.activated && !agent.drainState,
    });
    this.unavailability.delete(agent.id);
    const runtime = this.agents.get(agent.id);
    if (runtime) runtime.inAllocator = true;
  }

  // ------------------------------------------------------------------ configuration events

  private async onClusterEvent(e: ClusterEvent): Promise<void> {
    const db = this.dataSource.manager;
    switch (e.type) {
      case 'agent.updated':
        await this.refreshAgent(e.agentId);
        break;
      case 'whitelist.updated':
        this.allocator.updateWhitelist(e.hostnames);
        break;
      case 'weights.updated':
        for (const [role, weight] of Object.entries(e.weights)) this.allocator.setWeight(role, weight);
        break;
      case 'quota.updated': {
        const q = await db.findOne(QuotaEntity, { where: { role: e.role } });
        if (q) this.applyQuota(q);
        break;
      }
      case 'quota.removed':
        this.allocator.removeQuota(e.role);
        break;
      case 'reservation.created':
      case 'reservation.removed':
        await this.refreshAgent(e.agentId, { resync: true });
        break;
      case 'maintenance.updated':
        await this.applyMaintenance(db);
        break;
    }
    this.requestCycle();
  }

  private applyQuota(q: QuotaEntity): void {
    try {
      this.allocator.setQuota(q.role, q.guarantees, q.limits);
    } catch (err) {
      this.logger.warn({ err, role: q.role }, 'quota not applied');
    }
  }

  /**
   * Brings the allocator's view of one agent in line with its row: activation and drain; with
   * `resync` also its total (reservations), after rescinding its outstanding offers.
   */
  private async refreshAgent(agentId: string, options: { resync?: boolean } = {}): Promise<void> {
    const db = this.dataSource.manager;
    const agent = await db.findOne(AgentEntity, { where: { id: agentId } });
    const runtime = this.agents.get(agentId);
    if (!agent || !runtime?.inAllocator) return;
    if (agent.status === AgentStatus.GONE) {
      await this.removeAgent(agent.id, 'the agent was marked gone', TaskState.LOST);
      return;
    }
    const usable = agent.activated && !agent.drainState && runtime.socket !== undefined;
    if (options.resync || !usable)
      await this.rescindOffersWhere(
        (o) => o.agentId === agentId,
        options.resync ? "the agent's reservations changed" : 'the agent was deactivated',
      );
    if (options.resync) {
      this.allocator.removeAgent(agentId);
      await this.addAgentToAllocator(db, agent, runtime.socket !== undefined);
      await this.applyMaintenance(db);
    } else if (usable && !this.isDown(agent.hostname)) this.allocator.activateAgent(agentId);
    else this.allocator.deactivateAgent(agentId, { maintenance: this.isDown(agent.hostname) });
  }

  private downHosts = new Set<string>();
  /** Start (epoch ms) of each agent's scheduled unavailability, as last given to the allocator. */
  private readonly unavailability = new Map<string, number | null>();
  private isDown(hostname: string): boolean {
    return this.downHosts.has(hostname);
  }

  /** DOWN machines get no offers; DRAINING ones get inverse offers from their window's start. */
  private async applyMaintenance(db: EntityManager): Promise<void> {
    const machines = await db.find(MaintenanceMachineEntity);
    const windows = new Map((await db.find(MaintenanceWindowEntity)).map((w) => [w.id, w]));
    const byHost = new Map(machines.map((m) => [m.hostname, m]));
    const wasDown = this.downHosts;
    this.downHosts = new Set(machines.filter((m) => m.mode === MachineMode.DOWN).map((m) => m.hostname));
    for (const agent of this.agents.values()) {
      if (!agent.inAllocator) continue;
      const m = byHost.get(agent.hostname);
      if (m?.mode === MachineMode.DOWN) {
        this.allocator.deactivateAgent(agent.id, { maintenance: true });
        await this.rescindOffersWhere((o) => o.agentId === agent.id, 'the agent is down for maintenance');
      } else if (wasDown.has(agent.hostname)) {
        // Back from maintenance: offered again if nothing else keeps it out.
        const row = await db.findOne(AgentEntity, { where: { id: agent.id } });
        if (row?.activated && !row.drainState && agent.socket) this.allocator.activateAgent(agent.id);
      }
      // Only a changed window resets the inverse offers (and the answers to them).
      const start = m?.mode === MachineMode.DRAINING ? (windows.get(m.windowId)?.startAt.getTime() ?? Date.now()) : null;
      if (this.unavailability.get(agent.id) !== start) {
        this.unavailability.set(agent.id, start);
        this.allocator.updateUnavailability(agent.id, start === null ? null : this.now() + (start - Date.now()) / 1000);
      }
    }
  }

  // ------------------------------------------------------------------ allocation loop

  /**
   * Runs a cycle soon (batched: at most one queued). Besides the timer, only events that bring
   * new offerable resources or clients ask for one (an agent registering, a framework
   * subscribing or reviving, an operator's change); resources that come back from answers and
   * finished tasks wait for the next timed cycle, as in Mesos: a cycle offers each agent at most
   * once, so a cycle per answer would re-offer the cluster as fast as the database records it.
   * While the last cycle's offers are still being written (so not yet sent), the next one waits
   * for them.
   */
  requestCycle(delayMs = 20): void {
    if (this.cycleScheduled || this.stopping) return;
    this.cycleScheduled = true;
    setTimeout(() => this.startCycle(), delayMs).unref();
  }

  /** A cycle's write handed to the journal and not yet settled. */
  private cycleWriting?: Promise<unknown>;

  private startCycle(): void {
    if (this.stopping) return;
    if (this.cycleWriting) {
      void this.cycleWriting.then(() => this.startCycle());
      return;
    }
    void this.queue
      .run(async () => {
        this.cycleScheduled = false;
        await this.runCycle();
      })
      .catch((err) => this.logger.error({ err }, 'allocation cycle failed'));
  }

  /** Runs one cycle now (in the queue) and resolves with the number of offers made. */
  runCycleNow(): Promise<number> {
    return this.exclusive(() => this.runCycle());
  }

  private async runCycle(): Promise<number> {
    if (this.stopping) return 0;
    const startedAt = new Date();
    const t0 = performance.now();
    const result = this.allocator.allocate({ trace: true });
    const durationMs = performance.now() - t0;
    this.cycles++;
    // Offers only to frameworks that are still connected; the rest go straight back.
    const deliverable: AllocatorOffer[] = [];
    for (const o of result.offers) {
      if (this.frameworks.get(o.frameworkId)?.socket && this.agents.get(o.agentId)?.socket) deliverable.push(o);
      else this.allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
    }
    // A cycle that offered nothing is recorded when its decisions differ from the last recorded
    // one (or every IDLE_CYCLE_RECORD_MS): history stays complete without a row per second.
    const idle = deliverable.length === 0 && result.inverseOffers.length === 0;
    const traceKey = JSON.stringify(result.trace?.counts ?? {});
    if (idle && traceKey === this.lastTraceKey && performance.now() - this.lastRecordedCycle < IDLE_CYCLE_RECORD_MS) return 0;
    this.lastRecordedCycle = performance.now();
    this.lastTraceKey = traceKey;

    const shares = this.allocator.shares();
    const expiresAt = this.config.offerTimeout ? new Date(startedAt.getTime() + this.config.offerTimeout * 1000) : null;
    const rows = deliverable.map((o) => ({ id: randomUUID(), resources: o.resources.toJSON() }));
    const shareRows = [
      ...Object.entries(shares.roles).map(([role, share]) => ({
        kind: ShareClientKind.ROLE,
        client: role,
        role: null,
        dominantShare: share,
        shares: {},
      })),
      ...Object.entries(shares.frameworks).map(([fw, byRole]) => ({
        kind: ShareClientKind.FRAMEWORK,
        client: fw,
        role: Object.keys(byRole).join(','),
        dominantShare: Math.max(0, ...Object.values(byRole)),
        shares: byRole,
      })),
    ];
    // The cycle, its offers and the shares after it: one statement, written in the journal's
    // order while the queue goes on; the offers are outstanding at once (no other cycle offers
    // their resources) but sent only once committed.
    const written = this.journal.run(
      'background',
      () =>
        this.dataSource.query(
          `WITH cycle AS (
           INSERT INTO allocation_cycles (started_at, duration_ms, offer_count, trace, leader) VALUES ($1, $2, $3, $4::jsonb, NULL) RETURNING id),
         offers AS (
           INSERT INTO offers (id, framework_id, agent_id, role, resources, state, cycle_id, created_at, expires_at, closed_at)
           SELECT o.id, o.framework_id, o.agent_id, o.role, o.resources::jsonb, 'OUTSTANDING', (SELECT id FROM cycle), $1, $5, NULL
             FROM unnest($6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[]) AS o(id, framework_id, agent_id, role, resources)),
         outstanding AS (INSERT INTO outstanding_offers (offer_id) SELECT unnest($6::uuid[])),
         shares AS (
           INSERT INTO allocation_shares (cycle_id, client_kind, client, role, dominant_share, shares)
           SELECT (SELECT id FROM cycle), s.kind::share_client_kind, s.client, s.role, s.dominant_share, s.shares::jsonb
             FROM unnest($11::text[], $12::text[], $13::text[], $14::float8[], $15::text[]) AS s(kind, client, role, dominant_share, shares))
         SELECT id FROM cycle`,
          [
            startedAt,
            durationMs,
            deliverable.length,
            JSON.stringify(result.trace ?? {}),
            expiresAt,
            rows.map((r) => r.id),
            deliverable.map((o) => o.frameworkId),
            deliverable.map((o) => o.agentId),
            deliverable.map((o) => o.role),
            rows.map((r) => JSON.stringify(r.resources)),
            shareRows.map((r) => r.kind),
            shareRows.map((r) => r.client),
            shareRows.map((r) => r.role),
            shareRows.map((r) => r.dominantShare),
            shareRows.map((r) => JSON.stringify(r.shares)),
          ],
        ) as Promise<Array<{ id: string }>>,
    );
    const made = deliverable.map((o, i): OutstandingOffer => ({
      id: rows[i].id,
      frameworkId: o.frameworkId,
      agentId: o.agentId,
      role: o.role,
      resources: o.resources,
      createdAt: performance.now(),
      sent: false,
    }));
    for (const o of made) this.offers.set(o.id, o);
    const writing = (this.cycleWriting = written.then(
      () => undefined,
      () => undefined,
    ));
    void writing.then(() => {
      if (this.cycleWriting === writing) this.cycleWriting = undefined;
    });
    await this.sendInverseOffers(result.inverseOffers);
    written.then(
      ([cycle]) => {
        const byFramework = new Map<string, Offer[]>();
        for (const [i, o] of made.entries()) {
          // Gone already (its agent or framework left, say): never sent.
          if (this.offers.get(o.id) !== o) continue;
          o.sent = true;
          const agent = this.agents.get(o.agentId);
          const resources = rows[i].resources as ResourceEntry[];
          const list = byFramework.get(o.frameworkId) ?? [];
          list.push({
            id: o.id,
            frameworkId: o.frameworkId,
            agentId: o.agentId,
            hostname: agent?.hostname ?? '',
            role: o.role,
            resources,
            attributes: agent?.attributes ?? {},
          });
          byFramework.set(o.frameworkId, list);
          this.stream.emit('offer.created', { offerId: o.id, frameworkId: o.frameworkId, agentId: o.agentId, role: o.role, resources });
        }
        for (const [fwId, list] of byFramework) this.frameworks.get(fwId)?.socket?.emit('offers', { offers: list });
        const frameworkShares = Object.fromEntries(
          Object.entries(shares.frameworks).map(([fw, byRole]) => [fw, Math.max(0, ...Object.values(byRole))]),
        );
        this.stream.emit('cycle', {
          id: String(cycle.id),
          startedAt: startedAt.toISOString(),
          durationMs,
          offerCount: deliverable.length,
          shares: { roles: shares.roles, frameworks: frameworkShares },
        });
      },
      (err: unknown) => {
        // Not recorded, so never made: the resources go back.
        this.logger.error({ err }, 'allocation cycle not recorded; its offers are withdrawn');
        for (const o of made) {
          if (this.offers.get(o.id) !== o) continue;
          this.offers.delete(o.id);
          this.allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
        }
      },
    );
    return deliverable.length;
  }

  private async sendInverseOffers(list: Array<{ frameworkId: string; agentId: string; start: number }>): Promise<void> {
    const windows = new Map<string, { start: string; durationSeconds: number | null }>();
    if (list.length) {
      const machines = await this.dataSource.manager.find(MaintenanceMachineEntity, { relations: { window: true } });
      for (const m of machines)
        if (m.window) windows.set(m.hostname, { start: m.window.startAt.toISOString(), durationSeconds: m.window.durationSeconds });
    }
    for (const io of list) {
      const agent = this.agents.get(io.agentId);
      const fw = this.frameworks.get(io.frameworkId);
      if (!agent || !fw?.socket) continue;
      const id = randomUUID();
      this.inverseOffers.set(id, { id, frameworkId: io.frameworkId, agentId: io.agentId });
      const unavailability = windows.get(agent.hostname) ?? {
        start: new Date(Date.now() + (io.start - this.now()) * 1000).toISOString(),
        durationSeconds: null,
      };
      fw.socket.emit('inverseOffers', {
        inverseOffers: [{ id, frameworkId: fw.id, agentId: agent.id, hostname: agent.hostname, unavailability }],
      });
    }
  }

  /** Gives outstanding offers back to the allocator and tells their frameworks. */
  private async rescindOffersWhere(match: (o: OutstandingOffer) => boolean, reason: string): Promise<void> {
    const gone = [...this.offers.values()].filter(match);
    if (!gone.length) return;
    for (const o of gone) {
      this.offers.delete(o.id);
      this.allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
    }
    await this.journal.run('background', () =>
      closeOffers(this.dataSource.manager, new Map(gone.map((o) => [o.id, OfferState.RESCINDED])), new Date()),
    );
    for (const o of gone) {
      if (o.sent) this.frameworks.get(o.frameworkId)?.socket?.emit('rescind', { offerId: o.id, reason });
      this.stream.emit('offer.closed', { offerId: o.id, state: OfferState.RESCINDED });
    }
  }

  private async expireOffers(): Promise<void> {
    if (!this.config.offerTimeout) return;
    const limit = performance.now() - this.config.offerTimeout * 1000;
    await this.rescindOffersWhere((o) => o.createdAt <= limit, 'the offer timed out');
  }

  /**
   * Drops what is older than its retention: allocation history (cycles with their shares, and
   * offers made before it except those still outstanding) and ended tasks with their status
   * updates (except a task whose update its framework has yet to acknowledge, unless the
   * framework has completed). In small batches outside the serial queue, each its own
   * statement, so pruning never holds up allocation; at most `budgetMs` of work per call.
   * Resolves with the number of cycles, offers and tasks removed.
   */
  async pruneHistory(
    before: { history?: Date; tasks?: Date } = {},
    budgetMs = 20_000,
  ): Promise<{ cycles: number; offers: number; tasks: number }> {
    const history = before.history ?? new Date(Date.now() - this.config.historyRetentionDays * 86_400_000);
    const tasks = before.tasks ?? new Date(Date.now() - this.config.taskRetentionDays * 86_400_000);
    const removed = { cycles: 0, offers: 0, tasks: 0 };
    const t0 = performance.now();
    while (!this.stopping && performance.now() - t0 < budgetMs) {
      const [row]: Array<{ cycles: number; offers: number; tasks: number }> = await this.dataSource.query(
        `WITH old_offers AS (
                SELECT id FROM offers o WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM outstanding_offers x WHERE x.offer_id = o.id)
                 ORDER BY created_at LIMIT ${PRUNE_BATCH_OFFERS}),
              offers_gone AS (DELETE FROM offers o USING old_offers WHERE o.id = old_offers.id RETURNING 1),
              old_cycles AS (SELECT id FROM allocation_cycles WHERE started_at < $1 ORDER BY id LIMIT ${PRUNE_BATCH_CYCLES}),
              cycles_gone AS (DELETE FROM allocation_cycles c USING old_cycles WHERE c.id = old_cycles.id RETURNING 1),
              old_tasks AS (
                SELECT t.id FROM tasks t
                 WHERE t.state IN ${TERMINAL_TASK_STATES_SQL} AND t.updated_at < $2
                   AND NOT EXISTS (SELECT 1 FROM task_status_updates u JOIN frameworks f ON f.id = t.framework_id
                                    WHERE u.task_ref = t.id AND u.acknowledged_at IS NULL AND f.state <> 'COMPLETED')
                 ORDER BY t.updated_at LIMIT ${PRUNE_BATCH_TASKS}),
              tasks_gone AS (DELETE FROM tasks t USING old_tasks WHERE t.id = old_tasks.id RETURNING 1)
         SELECT (SELECT count(*) FROM cycles_gone)::int AS cycles, (SELECT count(*) FROM offers_gone)::int AS offers, (SELECT count(*) FROM tasks_gone)::int AS tasks`,
        [history, tasks],
      );
      removed.cycles += row.cycles;
      removed.offers += row.offers;
      removed.tasks += row.tasks;
      if (row.cycles < PRUNE_BATCH_CYCLES && row.offers < PRUNE_BATCH_OFFERS && row.tasks < PRUNE_BATCH_TASKS) break;
    }
    return removed;
  }

  // ------------------------------------------------------------------ agents

  registerAgent(
    socket: Socket,
    msg: RegisterAgent & { tasks: NonNullable<RegisterAgent['tasks']>; attributes: NonNullable<RegisterAgent['attributes']> },
  ): Promise<RegisterAgentReply> {
    return this.exclusive(async () => {
      const now = new Date();
      const resources = Resources.of(msg.resources);
      const db = this.dataSource.manager;
      let agent = msg.agentId ? await db.findOne(AgentEntity, { where: { id: msg.agentId } }) : null;
      if (agent?.status === AgentStatus.GONE)
        throw new ProtocolError(
          PROTOCOL_ERRORS.AGENT_GONE,
          `agent ${agent.id} was marked gone; start the agent with a fresh work directory`,
        );
      const isNew = !agent;
      agent = await this.dataSource.transaction(async (tx) => {
        const row = agent
          ? Object.assign(agent, {
              hostname: msg.hostname,
              address: msg.address ?? null,
              resources: resources.toJSON(),
              attributes: msg.attributes,
              status: AgentStatus.REACHABLE,
              version: msg.version ?? null,
              lastSeenAt: now,
            })
          : tx.create(AgentEntity, {
              id: msg.agentId ?? randomUUID(),
              hostname: msg.hostname,
              address: msg.address ?? null,
              attributes: msg.attributes,
              resources: resources.toJSON(),
              status: AgentStatus.REACHABLE,
              activated: true,
              drainState: null,
              drainConfig: null,
              drainStartedAt: null,
              version: msg.version ?? null,
              firstSeenAt: now,
              lastSeenAt: now,
            });
        return tx.save(AgentEntity, row);
      });

      // Replace an older connection of the same agent.
      const previous = this.agents.get(agent.id);
      if (previous?.socket && previous.socket.id !== socket.id) previous.socket.disconnect(true);
      if (previous?.inAllocator) {
        await this.rescindOffersWhere((o) => o.agentId === agent.id, 'the agent re-registered');
        this.allocator.removeAgent(agent.id);
      }
      const runtime: AgentRuntime = {
        id: agent.id,
        hostname: agent.hostname,
        attributes: agent.attributes,
        socket,
        lastSeen: performance.now(),
        inAllocator: false,
      };
      this.agents.set(agent.id, runtime);
      socket.data.agentId = agent.id;

      await this.reconcileAgentTasks(agent.id, msg.tasks);
      await this.addAgentToAllocator(db, agent, true);
      await this.applyMaintenance(db);
      if (this.isDown(agent.hostname)) this.allocator.deactivateAgent(agent.id, { maintenance: true });
      this.stream.emit(
        isNew ? 'agent.added' : 'agent.updated',
        isNew ? { agentId: agent.id, hostname: agent.hostname, resources: agent.resources } : ({ agentId: agent.id } as never),
      );
      this.requestCycle();
      return { agentId: agent.id, heartbeatIntervalSeconds: AGENT_HEARTBEAT_SECONDS };
    });
  }

  /**
   * After a (re-)registration: tasks the database thinks run there but the agent does not
   * report are LOST; tasks the agent runs that nobody wants any more are killed.
   */
  private async reconcileAgentTasks(
    agentId: string,
    reported: Array<{ frameworkId: string; taskId: string; state: string }>,
  ): Promise<void> {
    const db = this.dataSource.manager;
    const live = await db.find(TaskEntity, { where: { agentId, state: Not(In([...TERMINAL_TASK_STATES])) } });
    const reportedKeys = new Set(reported.map((t) => `${t.frameworkId}\u0000${t.taskId}`));
    const knownKeys = new Set(live.map((t) => `${t.frameworkId}\u0000${t.taskId}`));
    // STAGING tasks may not have reached the agent yet; they are resent below.
    const missing = live.filter((t) => !reportedKeys.has(`${t.frameworkId}\u0000${t.taskId}`) && t.state !== TaskState.STAGING);
    await this.masterUpdate(missing, TaskState.LOST, 'REASON_AGENT_RESTARTED', 'the agent re-registered without this task');
    const socket = this.agents.get(agentId)?.socket;
    for (const t of reported) {
      // A reported task in a terminal state has its last update on the way: nothing to do.
      if (!knownKeys.has(`${t.frameworkId}\u0000${t.taskId}`) && !isTerminal(t.state as TaskState))
        socket?.emit('kill', { frameworkId: t.frameworkId, taskId: t.taskId, gracePeriodSeconds: KILL_GRACE_SECONDS });
    }
    for (const t of live.filter((t) => t.state === TaskState.STAGING && !reportedKeys.has(`${t.frameworkId}\u0000${t.taskId}`))) {
      this.sendLaunch(agentId, t);
    }
  }

  heartbeatAgent(socket: Socket): void {
    const runtime = this.agents.get(String(socket.data.agentId));
    if (runtime?.socket === socket) runtime.lastSeen = performance.now();
  }

  agentDisconnected(socket: Socket): Promise<void> {
    return this.exclusive(async () => {
      const runtime = this.agents.get(String(socket.data.agentId));
      if (!runtime || runtime.socket !== socket) return;
      runtime.socket = undefined;
      if (runtime.inAllocator) this.allocator.deactivateAgent(runtime.id);
      await this.rescindOffersWhere((o) => o.agentId === runtime.id, 'the agent disconnected');
      this.stream.emit('agent.updated', { agentId: runtime.id });
    });
  }

  /** Seconds of silence after which an agent is unreachable. */
  private timeoutOf(agent: AgentRuntime): number {
    return agent.recovered ? this.config.agentReregisterTimeout : this.config.agentTimeout;
  }

  private isSilent(agent: AgentRuntime): boolean {
    return agent.lastSeen <= performance.now() - this.timeoutOf(agent) * 1000;
  }

  private silentAgents(): AgentRuntime[] {
    return [...this.agents.values()].filter((a) => this.isSilent(a));
  }

  /** Agents silent past their timeout become unreachable: offers rescinded, tasks LOST. */
  private async checkAgents(): Promise<void> {
    for (const agent of this.silentAgents()) {
      // Heard from while earlier ones were removed: kept.
      if (!this.isSilent(agent)) continue;
      agent.socket?.disconnect(true);
      const reason = agent.recovered
        ? `not registered again within ${this.config.agentReregisterTimeout} s of the control plane's start`
        : `no heartbeat for ${this.config.agentTimeout} s`;
      await this.removeAgent(agent.id, reason, TaskState.LOST, AgentStatus.UNREACHABLE);
    }
  }

  private async removeAgent(agentId: string, reason: string, taskState: TaskState, status?: AgentStatus): Promise<void> {
    const runtime = this.agents.get(agentId);
    await this.rescindOffersWhere((o) => o.agentId === agentId, reason);
    const db = this.dataSource.manager;
    const live = await db.find(TaskEntity, { where: { agentId, state: Not(In([...TERMINAL_TASK_STATES])) } });
    await this.masterUpdate(live, taskState, 'REASON_AGENT_REMOVED', `agent removed: ${reason}`);
    if (status) await db.update(AgentEntity, { id: agentId }, { status });
    if (runtime?.inAllocator) this.allocator.removeAgent(agentId);
    this.agents.delete(agentId);
    this.stream.emit('agent.removed', { agentId, reason });
    this.logger.warn({ agentId, reason }, 'agent removed');
  }

  private async recordAgentsSeen(): Promise<void> {
    const ids = [...this.agents.values()].filter((a) => a.socket).map((a) => a.id);
    if (ids.length) await this.dataSource.query('UPDATE agents SET last_seen_at = now() WHERE id = ANY($1)', [ids]);
  }

  /**
   * A status update from an agent. An update of a live task (in memory) goes straight to the
   * journal, without a turn in the queue: its write decides what it changes (the task's end is
   * acted on once its write has committed and moved the task), so it needs nothing the queue
   * guards. Updates that arrive while one batch is being written go into the next, so one
   * statement records many (each once per updateUuid); the agents are answered when it has
   * committed. Updates of other tasks (ended, or unknown) are looked up in the queue.
   */
  agentStatus(socket: Socket, update: StatusUpdate): Promise<void> {
    const runtime = this.agents.get(String(socket.data.agentId));
    if (!runtime || runtime.socket !== socket)
      return Promise.reject(new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, 'register before sending status updates'));
    runtime.lastSeen = performance.now();
    const task = this.liveTasks.get(update.frameworkId, update.taskId);
    return task ? this.statusWrites.push({ task, update }) : this.statuses.push(update);
  }

  private readonly statuses = new GroupCommit<StatusUpdate, void>(
    (flush) => this.exclusive(flush),
    (batch) => this.flushStatuses(batch),
  );

  /** Updates of tasks not live in memory: read once the writes in flight have committed, then written like the others. */
  private async flushStatuses(batch: Array<Pending<StatusUpdate, void>>): Promise<void> {
    const pairs = [...new Map(batch.map((b) => [taskKey(b.item.frameworkId, b.item.taskId), b.item])).values()];
    const found: Array<{
      id: string;
      task_id: string;
      framework_id: string;
      agent_id: string;
      name: string;
      role: string;
      resources: ResourceEntry[];
      state: TaskState;
      created_at: Date;
      updated_at: Date;
    }> = await this.dataSource.query(
      `SELECT t.id, t.task_id, t.framework_id, t.agent_id, t.name, t.role, t.resources, t.state, t.created_at, t.updated_at
         FROM tasks t JOIN unnest($1::text[], $2::text[]) AS v(framework_id, task_id) ON t.framework_id = v.framework_id AND t.task_id = v.task_id`,
      [pairs.map((u) => u.frameworkId), pairs.map((u) => u.taskId)],
    );
    const byKey = new Map<string, TaskEntity>();
    for (const r of found)
      byKey.set(taskKey(r.framework_id, r.task_id), {
        id: r.id,
        taskId: r.task_id,
        frameworkId: r.framework_id,
        agentId: r.agent_id,
        name: r.name,
        role: r.role,
        resources: r.resources,
        command: null,
        state: r.state,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      });
    for (const b of batch) {
      const task = byKey.get(taskKey(b.item.frameworkId, b.item.taskId));
      // Unknown tasks: nothing to record; the agent may drop the update.
      if (!task) b.resolve();
      else this.statusWrites.push({ task, update: b.item }).then(b.resolve, b.reject);
    }
  }

  /** Status updates written in the journal's `statuses` lane (those that arrive while one write is on go in the next). */
  private readonly statusWrites = new GroupCommit<{ task: TaskEntity; update: StatusUpdate }, void>(
    (flush) => this.journal.run('statuses', flush),
    async (batch) => {
      await this.applyUpdates(batch.map((b) => b.item));
      for (const b of batch) b.resolve();
    },
  );

  /**
   * Records status updates in one transaction (each once, by updateUuid; a task's state moves
   * until it is terminal), then recovers the resources of tasks that ended and forwards the
   * updates to their frameworks and to operators. What moved is what the statement moved, so a
   * task's end is acted on once, however its rows were read.
   */
  private async applyUpdates(items: Array<{ task: TaskEntity; update: StatusUpdate }>): Promise<void> {
    if (!items.length) return;
    // One statement, so one round trip and all or nothing: the updates not recorded before go
    // in, and each of their tasks moves to its final state (in arrival order, stopping at the
    // first terminal one; a task already terminal stays as it is).
    const result: Array<{ update_uuid: string | null; moved_id: string | null; moved_state: TaskState | null }> =
      await this.dataSource.query(
        `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::uuid[], $7::timestamptz[])
           WITH ORDINALITY AS v(task_ref, state, reason, message, source, update_uuid, at, ord)),
       ins AS (
         INSERT INTO task_status_updates (task_ref, state, reason, message, source, update_uuid, at)
         SELECT task_ref, state::task_status_update_state, reason, message, source, update_uuid, at FROM v ORDER BY ord
         ON CONFLICT (update_uuid) DO NOTHING RETURNING update_uuid),
       final AS (
         SELECT DISTINCT ON (v.task_ref) v.task_ref, v.state FROM v JOIN ins ON ins.update_uuid = v.update_uuid
          ORDER BY v.task_ref, (v.state = ANY($8::text[])) DESC, CASE WHEN v.state = ANY($8::text[]) THEN v.ord END, v.ord DESC),
       moved AS (
         UPDATE tasks t SET state = final.state::task_state, updated_at = now() FROM final
          WHERE t.id = final.task_ref AND NOT (t.state::text = ANY($8::text[]))
          RETURNING t.id, t.state)
       SELECT update_uuid, NULL::uuid AS moved_id, NULL::text AS moved_state FROM ins
       UNION ALL SELECT NULL, id, state::text FROM moved`,
        [
          items.map((i) => i.task.id),
          items.map((i) => i.update.state),
          items.map((i) => i.update.reason ?? null),
          items.map((i) => i.update.message ?? null),
          items.map((i) => i.update.source),
          items.map((i) => i.update.updateUuid),
          items.map((i) => new Date(i.update.timestamp)),
          [...TERMINAL_TASK_STATES],
        ],
      );
    const fresh = new Set<string>();
    const moved = new Map<string, TaskState>();
    for (const r of result) {
      if (r.update_uuid) fresh.add(r.update_uuid);
      if (r.moved_id && r.moved_state) moved.set(r.moved_id, r.moved_state);
    }
    const byId = new Map(items.map((i) => [i.task.id, i.task]));
    for (const [id, state] of moved) {
      const task = byId.get(id)!;
      task.state = state;
      if (!isTerminal(state)) {
        const live = this.liveTasks.get(task.frameworkId, task.taskId);
        if (live) live.state = state;
        continue;
      }
      this.liveTasks.delete(task.frameworkId, task.taskId);
      if (this.frameworks.has(task.frameworkId) && this.agents.get(task.agentId)?.inAllocator) {
        // Offered again by the next cycle, as in Mesos: recovered resources wait for the timer.
        this.allocator.recoverResources(task.frameworkId, task.agentId, task.role, Resources.of(task.resources));
      }
    }
    for (const { task, update } of items) {
      if (!fresh.has(update.updateUuid)) continue;
      this.frameworks.get(task.frameworkId)?.socket?.emit('update', { status: update });
      this.stream.emit('task.updated', {
        frameworkId: task.frameworkId,
        taskId: task.taskId,
        agentId: task.agentId,
        state: update.state,
        reason: update.reason,
      });
    }
  }

  /** Status updates the master makes itself (tasks lost, killed before launch, ...), in one transaction. */
  private async masterUpdate(tasks: TaskEntity[], state: TaskState, reason: string, message: string): Promise<void> {
    const timestamp = new Date().toISOString();
    await this.applyUpdates(
      tasks.map((task) => ({
        task,
        update: {
          updateUuid: randomUUID(),
          frameworkId: task.frameworkId,
          taskId: task.taskId,
          agentId: task.agentId,
          state: state as WireTaskState,
          reason,
          message,
          timestamp,
          source: 'SOURCE_MASTER' as const,
        },
      })),
    );
  }

  private sendLaunch(agentId: string, task: TaskEntity): void {
    const socket = this.agents.get(agentId)?.socket;
    if (!socket) return;
    const spec = task.command as unknown as { command: TaskSpec['command']; env?: Record<string, string> };
    const mem = Resources.of(task.resources).get('mem');
    const msg: LaunchTask = {
      frameworkId: task.frameworkId,
      task: { taskId: task.taskId, name: task.name, command: spec.command, env: spec.env, resources: task.resources as ResourceEntry[] },
      ...(mem > 0 ? { memLimitBytes: Math.round(mem * 1024 * 1024) } : {}),
    };
    socket.emit('launch', msg);
  }

  // ------------------------------------------------------------------ frameworks

  subscribe(
    socket: Socket,
    msg: Subscribe & { capabilities: string[]; failoverTimeoutSeconds: number; suppressedRoles: string[] },
    principal: string,
  ): Promise<SubscribeReply> {
    return this.exclusive(async () => {
      const db = this.dataSource.manager;
      const now = new Date();
      let fw: FrameworkEntity | null = null;
      if (msg.frameworkId) {
        fw = await db.findOne(FrameworkEntity, { where: { id: msg.frameworkId } });
        if (!fw)
          throw new ProtocolError(
            PROTOCOL_ERRORS.UNKNOWN_FRAMEWORK,
            `no framework with id '${msg.frameworkId}'; subscribe without an id to start afresh`,
          );
        if (fw.state === FrameworkState.COMPLETED)
          throw new ProtocolError(
            PROTOCOL_ERRORS.FRAMEWORK_COMPLETED,
            `framework ${fw.id} has completed (torn down or failed over past its timeout); subscribe without an id`,
          );
      }
      const row = await db.save(
        FrameworkEntity,
        fw
          ? Object.assign(fw, {
              name: msg.name,
              roles: msg.roles,
              capabilities: msg.capabilities,
              failoverTimeoutSeconds: msg.failoverTimeoutSeconds,
              principal: msg.principal ?? principal,
              user: msg.user ?? null,
              hostname: msg.hostname ?? null,
              state: FrameworkState.ACTIVE,
              suppressedRoles: msg.suppressedRoles,
              disconnectedAt: null,
            })
          : db.create(FrameworkEntity, {
              id: randomUUID(),
              name: msg.name,
              principal: msg.principal ?? principal,
              user: msg.user ?? null,
              roles: msg.roles,
              capabilities: msg.capabilities,
              failoverTimeoutSeconds: msg.failoverTimeoutSeconds,
              hostname: msg.hostname ?? null,
              webuiUrl: null,
              state: FrameworkState.ACTIVE,
              suppressedRoles: msg.suppressedRoles,
              registeredAt: now,
              disconnectedAt: null,
              completedAt: null,
            }),
      );
      let runtime = this.frameworks.get(row.id);
      if (runtime) {
        if (runtime.failoverTimer) clearTimeout(runtime.failoverTimer);
        runtime.failoverTimer = undefined;
        if (runtime.socket && runtime.socket.id !== socket.id) runtime.socket.disconnect(true);
        await this.rescindOffersWhere((o) => o.frameworkId === row.id, 'the framework re-subscribed');
        this.allocator.updateFramework(row.id, row.roles, row.capabilities);
        this.allocator.reviveOffers(row.id);
        if (row.suppressedRoles.length) this.allocator.suppressOffers(row.id, row.suppressedRoles);
        this.allocator.activateFramework(row.id);
        Object.assign(runtime, {
          name: row.name,
          roles: row.roles,
          capabilities: row.capabilities,
          failoverTimeoutSeconds: row.failoverTimeoutSeconds,
        });
      } else {
        this.allocator.addFramework(row.id, row.roles, { capabilities: row.capabilities, suppressedRoles: row.suppressedRoles });
        runtime = {
          id: row.id,
          name: row.name,
          roles: row.roles,
          capabilities: row.capabilities,
          failoverTimeoutSeconds: row.failoverTimeoutSeconds,
        };
        this.frameworks.set(row.id, runtime);
        this.stream.emit('framework.added', { frameworkId: row.id, name: row.name, roles: row.roles });
      }
      runtime.socket = socket;
      socket.data.frameworkId = row.id;
      setTimeout(() => void this.resendUnacknowledged(row.id, 0), 10).unref();
      this.requestCycle();
      return { frameworkId: row.id, heartbeatIntervalSeconds: FRAMEWORK_HEARTBEAT_SECONDS };
    });
  }

  frameworkDisconnected(socket: Socket): Promise<void> {
    return this.exclusive(async () => {
      const runtime = this.frameworks.get(String(socket.data.frameworkId));
      if (!runtime || runtime.socket !== socket) return;
      runtime.socket = undefined;
      this.allocator.deactivateFramework(runtime.id);
      await this.rescindOffersWhere((o) => o.frameworkId === runtime.id, 'the framework disconnected');
      await this.dataSource.manager.update(
        FrameworkEntity,
        { id: runtime.id },
        { state: FrameworkState.DISCONNECTED, disconnectedAt: new Date() },
      );
      this.startFailover(runtime);
    });
  }

  /** After the failover timeout a disconnected framework is torn down. */
  private startFailover(runtime: FrameworkRuntime): void {
    if (runtime.failoverTimer) clearTimeout(runtime.failoverTimer);
    runtime.failoverTimer = setTimeout(() => {
      runtime.failoverTimer = undefined;
      void this.exclusive(async () => {
        if (!runtime.socket && this.frameworks.get(runtime.id) === runtime)
          await this.removeFramework(runtime.id, `disconnected for longer than its failover timeout (${runtime.failoverTimeoutSeconds} s)`);
      }).catch((err) => this.logger.error({ err }, 'failover'));
    }, runtime.failoverTimeoutSeconds * 1000);
    runtime.failoverTimer.unref();
  }

  private requireFramework(socket: Socket): FrameworkRuntime {
    const runtime = this.frameworks.get(String(socket.data.frameworkId));
    if (!runtime || runtime.socket !== socket) throw new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, "send 'subscribe' first");
    return runtime;
  }

  /** Completes a framework: its tasks killed, its offers rescinded, its resources recovered. */
  private async removeFramework(frameworkId: string, reason: string): Promise<void> {
    const runtime = this.frameworks.get(frameworkId);
    await this.rescindOffersWhere((o) => o.frameworkId === frameworkId, reason);
    const db = this.dataSource.manager;
    const live = await db.find(TaskEntity, { where: { frameworkId, state: Not(In([...TERMINAL_TASK_STATES])) } });
    const notRunning: TaskEntity[] = [];
    for (const t of live) {
      const agent = this.agents.get(t.agentId)?.socket;
      if (agent && t.state !== TaskState.STAGING)
        agent.emit('kill', { frameworkId, taskId: t.taskId, gracePeriodSeconds: KILL_GRACE_SECONDS });
      else notRunning.push(t);
    }
    await this.masterUpdate(notRunning, TaskState.KILLED, 'REASON_FRAMEWORK_REMOVED', reason);
    await db.update(FrameworkEntity, { id: frameworkId }, { state: FrameworkState.COMPLETED, completedAt: new Date() });
    if (runtime) {
      if (runtime.failoverTimer) clearTimeout(runtime.failoverTimer);
      this.allocator.removeFramework(frameworkId);
      this.frameworks.delete(frameworkId);
    }
    this.stream.emit('framework.removed', { frameworkId, reason });
    this.requestCycle();
  }

  teardown(socket: Socket): Promise<void> {
    return this.exclusive(async () => {
      const fw = this.requireFramework(socket);
      fw.socket = undefined;
      await this.removeFramework(fw.id, 'the framework tore itself down');
      // Disconnect once the reply is out.
      setTimeout(() => socket.disconnect(true), 100).unref();
    });
  }

  /** Operator teardown through the REST API. */
  teardownById(frameworkId: string): Promise<boolean> {
    return this.exclusive(async () => {
      const fw = this.frameworks.get(frameworkId);
      if (!fw) return false;
      const socket = fw.socket;
      fw.socket = undefined;
      await this.removeFramework(frameworkId, 'torn down by an operator');
      socket?.disconnect(true);
      return true;
    });
  }

  /** Looks up offers for an accept or decline: all outstanding, the caller's, on one agent. */
  private async takeOffers(fw: FrameworkRuntime, offerIds: string[]): Promise<OutstandingOffer[]> {
    const found: OutstandingOffer[] = [];
    for (const id of new Set(offerIds)) {
      const o = this.offers.get(id);
      if (!o) {
        // After the writes in flight, so that an offer just answered shows how.
        await this.journal.settled();
        const row = await this.dataSource.manager.findOne(OfferEntity, { where: { id } });
        if (!row) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_OFFER, `no offer with id ${id}`, { offerId: id });
        if (row.frameworkId !== fw.id)
          throw new ProtocolError(PROTOCOL_ERRORS.OFFER_NOT_YOURS, `offer ${id} was made to another framework`, { offerId: id });
        throw new ProtocolError(PROTOCOL_ERRORS.OFFER_STALE, `offer ${id} is no longer valid (${row.state.toLowerCase()})`, {
          offerId: id,
          state: row.state,
        });
      }
      if (o.frameworkId !== fw.id)
        throw new ProtocolError(PROTOCOL_ERRORS.OFFER_NOT_YOURS, `offer ${id} was made to another framework`, { offerId: id });
      found.push(o);
    }
    if (new Set(found.map((o) => o.agentId)).size > 1)
      throw new ProtocolError(PROTOCOL_ERRORS.OFFERS_FROM_SEVERAL_AGENTS, 'offers accepted together must come from one agent');
    return found;
  }

  /**
   * Answers to offers (accepts and declines) are group-committed: those that arrive while a
   * batch is being written go into the next one. A batch is checked in arrival order against
   * the outstanding offers (an offer an earlier answer of the batch took is gone for the later
   * ones, a task id used earlier is a duplicate), written in one statement, and only then
   * answered and launched.
   */
  accept(socket: Socket, msg: Accept): Promise<AcceptReply> {
    return this.answers.push({ socket, accept: msg }) as Promise<AcceptReply>;
  }

  decline(socket: Socket, msg: Decline): Promise<void> {
    return this.answers.push({ socket, decline: msg }).then(() => undefined);
  }

  private readonly answers = new GroupCommit<OfferAnswer, AcceptReply | void>(
    (flush) => this.queue.run(flush),
    (batch) => this.flushAnswers(batch),
  );

  /** Launches, plain accepts and declines go out together; an accept that reserves or unreserves runs alone, in its turn. */
  private async flushAnswers(batch: Array<Pending<OfferAnswer, AcceptReply | void>>): Promise<void> {
    let group: typeof batch = [];
    for (const entry of batch) {
      const { socket, accept } = entry.item;
      if (!accept || accept.operations.every((op) => op.type === 'LAUNCH')) {
        group.push(entry);
        continue;
      }
      await this.answerOffers(group);
      group = [];
      await this.acceptReservations(socket, accept).then(entry.resolve, entry.reject);
    }
    await this.answerOffers(group);
  }

  /**
   * What an accept asks for, checked against its offers: the offers (all outstanding, the
   * caller's, from one agent), the tasks with the role whose offered resources they use, and
   * what is left of the offers per role. Changes nothing.
   */
  private async planAccept(fw: FrameworkRuntime, msg: Accept): Promise<PlannedAccept> {
    const offers = await this.takeOffers(fw, msg.offerIds);
    const agentId = offers[0].agentId;
    // What is left of the offered resources, per role.
    const pool = new Map<string, Resources>();
    for (const o of offers) pool.set(o.role, (pool.get(o.role) ?? Resources.empty()).plus(o.resources));
    const reservationOps = msg.operations.filter((op) => op.type !== 'LAUNCH');
    const launches = msg.operations.flatMap((op) => (op.type === 'LAUNCH' ? op.tasks : []));
    if (reservationOps.length && launches.length) {
      throw new ProtocolError(
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        'RESERVE and UNRESERVE cannot be combined with LAUNCH in one accept; launch on the reserved resources from the next offer',
      );
    }
    const tasks: PlannedAccept['tasks'] = [];
    const ids = new Set<string>();
    for (const spec of launches) {
      if (ids.has(spec.taskId))
        throw new ProtocolError(PROTOCOL_ERRORS.DUPLICATE_TASK, `task id '${spec.taskId}' appears twice in this accept`);
      ids.add(spec.taskId);
      const wanted = Resources.of(spec.resources);
      const role = [...pool.keys()].find((r) => pool.get(r)!.contains(wanted));
      if (!role) {
        throw new ProtocolError(
          PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
          `task '${spec.taskId}' needs ${wanted.toString()}, more than is left of the offers (${[...pool.values()].map((r) => r.toString()).join(' + ') || 'nothing'})`,
          { taskId: spec.taskId },
        );
      }
      pool.set(role, pool.get(role)!.minus(wanted));
      tasks.push({ spec, role });
    }
    return { fw, offers, agentId, pool, tasks, refuseSeconds: msg.refuseSeconds ?? DEFAULT_REFUSE_SECONDS };
  }

  /** Declined offers: the caller's that are still outstanding (declining one that is gone is harmless, as in Mesos). */
  private planDecline(fw: FrameworkRuntime, msg: Decline): PlannedAccept {
    const offers = [...new Set(msg.offerIds)].flatMap((id) => {
      const o = this.offers.get(id);
      return o && o.frameworkId === fw.id ? [o] : [];
    });
    return {
      fw,
      offers,
      agentId: '',
      pool: new Map(),
      tasks: [],
      refuseSeconds: msg.refuseSeconds ?? DEFAULT_REFUSE_SECONDS,
      declined: true,
    };
  }

  private async answerOffers(entries: Array<Pending<OfferAnswer, AcceptReply | void>>): Promise<void> {
    if (!entries.length) return;
    const plans: Array<PlannedAccept & { entry: (typeof entries)[number] }> = [];
    for (const entry of entries) {
      const { socket, accept, decline } = entry.item;
      try {
        const fw = this.requireFramework(socket);
        plans.push({ entry, ...(accept ? await this.planAccept(fw, accept) : this.planDecline(fw, decline!)) });
      } catch (err) {
        entry.reject(err);
      }
    }
    // Task ids the frameworks already used, for the whole batch in one query.
    const wanted = plans.flatMap((p) => p.tasks.map((t) => ({ frameworkId: p.fw.id, taskId: t.spec.taskId })));
    const used = new Set<string>();
    if (wanted.length) {
      const rows: Array<{ framework_id: string; task_id: string }> = await this.dataSource.query(
        'SELECT t.framework_id, t.task_id FROM tasks t JOIN unnest($1::text[], $2::text[]) AS v(framework_id, task_id) ON t.framework_id = v.framework_id AND t.task_id = v.task_id',
        [wanted.map((w) => w.frameworkId), wanted.map((w) => w.taskId)],
      );
      for (const r of rows) used.add(taskKey(r.framework_id, r.task_id));
      for (const w of wanted) if (this.launching.has(taskKey(w.frameworkId, w.taskId))) used.add(taskKey(w.frameworkId, w.taskId));
    }
    // In arrival order: what an earlier answer of the batch took is gone for the later ones.
    const taken = new Map<string, OfferState>();
    const answered: typeof plans = [];
    for (const p of plans) {
      if (p.declined) p.offers = p.offers.filter((o) => !taken.has(o.id));
      const stale = p.offers.find((o) => taken.has(o.id));
      if (stale) {
        const state = taken.get(stale.id)!;
        p.entry.reject(
          new ProtocolError(PROTOCOL_ERRORS.OFFER_STALE, `offer ${stale.id} is no longer valid (${state.toLowerCase()})`, {
            offerId: stale.id,
            state,
          }),
        );
        continue;
      }
      const duplicate = p.tasks.find((t) => used.has(taskKey(p.fw.id, t.spec.taskId)));
      if (duplicate) {
        p.entry.reject(
          new ProtocolError(PROTOCOL_ERRORS.DUPLICATE_TASK, `task id '${duplicate.spec.taskId}' is already used by this framework`),
        );
        continue;
      }
      for (const o of p.offers) taken.set(o.id, p.declined ? OfferState.DECLINED : OfferState.ACCEPTED);
      for (const t of p.tasks) used.add(taskKey(p.fw.id, t.spec.taskId));
      answered.push(p);
    }
    if (!taken.size) {
      for (const p of answered) p.entry.resolve(p.declined ? undefined : { launched: [] });
      return;
    }

    // Written in the journal while the queue goes on: the offers leave at once (no later answer
    // can take them), the task ids are held until the write is done, and the frameworks are
    // answered and the tasks launched only once it has committed. Launches and declines are
    // written apart, launches first: their write is on its way before the (many more) declined
    // offers are given back to the allocator, which takes a while when a cycle's answers arrive
    // together, and it never waits behind the declines' write.
    const accepted = answered.filter((p) => !p.declined);
    const declined = answered.filter((p) => p.declined);
    for (const p of accepted) {
      for (const o of p.offers) this.offers.delete(o.id);
      for (const [role, left] of p.pool)
        if (!left.isEmpty()) this.allocator.recoverResources(p.fw.id, p.agentId, role, left, p.refuseSeconds);
    }
    for (const p of declined) for (const o of p.offers) this.offers.delete(o.id);
    this.commitAnswers(accepted, this.launchWrites);
    this.commitAnswers(declined, this.declineWrites);
    if (accepted.length && declined.length) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const p of declined)
      for (const o of p.offers) this.allocator.recoverResources(p.fw.id, o.agentId, o.role, o.resources, p.refuseSeconds);
  }

  /** Writes answers already checked and taken out of the outstanding offers (in a journal lane), then answers them and launches their tasks. */
  private commitAnswers(
    answered: Array<PlannedAccept & { entry: Pending<OfferAnswer, AcceptReply | void> }>,
    writes: GroupCommit<{ offers: Map<string, OfferState>; tasks: TaskEntity[] }, void>,
  ): void {
    if (!answered.length) return;
    const now = new Date();
    const offers = new Map(
      answered.flatMap((p) => p.offers.map((o) => [o.id, p.declined ? OfferState.DECLINED : OfferState.ACCEPTED] as const)),
    );
    const rows = answered.map((p) =>
      p.tasks.map(({ spec, role }): TaskEntity => ({
        id: randomUUID(),
        taskId: spec.taskId,
        frameworkId: p.fw.id,
        agentId: p.agentId,
        name: spec.name,
        role,
        resources: spec.resources,
        command: { command: spec.command, env: spec.env ?? {} },
        state: TaskState.STAGING,
        createdAt: now,
        updatedAt: now,
      })),
    );
    const tasks = rows.flat();
    const held = tasks.map((t) => taskKey(t.frameworkId, t.taskId));
    for (const k of held) this.launching.add(k);
    const written = offers.size || tasks.length ? writes.push({ offers, tasks }) : Promise.resolve();
    written.then(
      () => {
        for (const k of held) this.launching.delete(k);
        for (const [i, p] of answered.entries()) {
          const state = p.declined ? OfferState.DECLINED : OfferState.ACCEPTED;
          for (const o of p.offers) this.stream.emit('offer.closed', { offerId: o.id, state });
          for (const t of rows[i]) this.liveTasks.add(t);
          for (const t of rows[i]) this.sendLaunch(p.agentId, t);
          p.entry.resolve(p.declined ? undefined : { launched: rows[i].map((t) => t.taskId) });
        }
      },
      (err: unknown) => {
        // Nothing was written: the tasks' resources go back and every answer of the write fails.
        for (const k of held) this.launching.delete(k);
        for (const p of answered) {
          if (this.frameworks.has(p.fw.id) && this.agents.get(p.agentId)?.inAllocator) {
            for (const t of p.tasks) this.allocator.recoverResources(p.fw.id, p.agentId, t.role, Resources.of(t.spec.resources));
          }
          p.entry.reject(err);
        }
      },
    );
  }

  /** Answers written in a journal lane; those that wait for it go out in one statement. */
  private answerWrites(lane: 'launches' | 'background'): GroupCommit<{ offers: Map<string, OfferState>; tasks: TaskEntity[] }, void> {
    return new GroupCommit(
      (flush) => this.journal.run(lane, flush),
      async (batch) => {
        const offers = new Map(batch.flatMap((b) => [...b.item.offers]));
        await this.writeAnswers(
          offers,
          batch.flatMap((b) => b.item.tasks),
          new Date(),
        );
        for (const b of batch) b.resolve();
      },
    );
  }

  private readonly launchWrites = this.answerWrites('launches');
  private readonly declineWrites = this.answerWrites('background');

  /** Framework and task ids of tasks whose launch is being written (duplicates for later accepts). */
  private readonly launching = new Set<string>();

  /**
   * The tasks that are not terminal, as stored: added once their launch has committed, changed
   * and dropped as their updates commit; never changed here before they are in Postgres.
   */
  private readonly liveTasks = new LiveTasks();

  /** The offers closed (accepted or declined) and the tasks inserted as STAGING: one statement, so one round trip and all or nothing. */
  private async writeAnswers(offers: Map<string, OfferState>, tasks: TaskEntity[], now: Date): Promise<void> {
    await this.dataSource.query(
      `WITH ${CLOSE_OFFERS}
       INSERT INTO tasks (id, task_id, framework_id, agent_id, name, role, resources, command, state, created_at, updated_at)
       SELECT v.id, v.task_id, v.framework_id, v.agent_id, v.name, v.role, v.resources::jsonb, v.command::jsonb, 'STAGING', $1, $1
         FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS v(id, task_id, framework_id, agent_id, name, role, resources, command)`,
      [
        now,
        [...offers.keys()],
        [...offers.values()],
        tasks.map((t) => t.id),
        tasks.map((t) => t.taskId),
        tasks.map((t) => t.frameworkId),
        tasks.map((t) => t.agentId),
        tasks.map((t) => t.name),
        tasks.map((t) => t.role),
        tasks.map((t) => JSON.stringify(t.resources)),
        tasks.map((t) => JSON.stringify(t.command)),
      ],
    );
  }

  /** An accept with RESERVE or UNRESERVE operations (no launches): the reservations change, the agent is offered anew. */
  private async acceptReservations(socket: Socket, msg: Accept): Promise<AcceptReply> {
    // It reads and changes the agent's rows: after the writes in flight.
    await this.journal.settled();
    const fw = this.requireFramework(socket);
    const { offers, agentId, pool } = await this.planAccept(fw, msg);
    const role = offers[0].role;
    const reservations = msg.operations.flatMap((op) =>
      op.type === 'LAUNCH' ? [] : [{ type: op.type, resources: Resources.of(op.resources) }],
    );
    for (const { type, resources } of reservations) {
      const source = type === 'RESERVE' ? resources.withReservation(undefined) : resources;
      if (type === 'RESERVE' && !resources.reserved().isEmpty() && resources.reserved(role).isEmpty())
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `RESERVE may reserve only for the offer's role '${role}'`);
      if (!pool.get(role)!.contains(source))
        throw new ProtocolError(
          PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
          `${type} of ${resources.toString()} is not covered by the offers`,
        );
    }
    await this.dataSource.transaction(async (tx) => {
      await closeOffers(tx, new Map(offers.map((o) => [o.id, OfferState.ACCEPTED])), new Date());
      for (const { type, resources } of reservations) await this.applyReservationOp(tx, agentId, role, type, resources, fw.id);
    });
    for (const o of offers) {
      this.offers.delete(o.id);
      this.stream.emit('offer.closed', { offerId: o.id, state: OfferState.ACCEPTED });
    }
    // The converted resources return to the allocator, which offers them to the role again.
    for (const o of offers) this.allocator.recoverResources(fw.id, agentId, o.role, o.resources);
    await this.refreshAgent(agentId, { resync: true });
    this.requestCycle();
    return { launched: [] };
  }

  private async applyReservationOp(
    tx: EntityManager,
    agentId: string,
    role: string,
    type: 'RESERVE' | 'UNRESERVE',
    resources: Resources,
    frameworkId: string,
  ): Promise<void> {
    if (type === 'RESERVE') {
      const reserved = resources.reserved().isEmpty() ? resources.withReservation(role) : resources;
      await tx.insert(ReservationEntity, {
        agentId,
        role,
        resources: reserved.toJSON(),
        labels: {},
        principal: `framework:${frameworkId}`,
        createdAt: new Date(),
      });
      return;
    }
    // UNRESERVE: shrink the role's reservations on the agent by the amount given.
    let left = resources;
    for (const r of await tx.find(ReservationEntity, { where: { agentId, role }, order: { createdAt: 'DESC' } })) {
      if (left.isEmpty()) break;
      const have = Resources.of(r.resources);
      const take = have.contains(left) ? left : have.minus(have.minus(left));
      const rest = have.minus(take);
      left = left.minus(take);
      if (rest.isEmpty()) await tx.delete(ReservationEntity, { id: r.id });
      else await tx.update(ReservationEntity, { id: r.id }, { resources: rest.toJSON() });
    }
    if (!left.isEmpty())
      throw new ProtocolError(
        PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
        `no reservation covers ${left.toString()} for role '${role}' on this agent`,
      );
  }

  suppress(socket: Socket, msg: RolesCall): Promise<void> {
    return this.changeSuppression(socket, msg, true);
  }

  revive(socket: Socket, msg: RolesCall): Promise<void> {
    return this.changeSuppression(socket, msg, false);
  }

  private changeSuppression(socket: Socket, msg: RolesCall, suppress: boolean): Promise<void> {
    return this.exclusive(async () => {
      const fw = this.requireFramework(socket);
      const roles = msg.roles ?? fw.roles;
      const unknown = roles.filter((r) => !fw.roles.includes(r));
      if (unknown.length)
        throw new ProtocolError(
          PROTOCOL_ERRORS.ROLE_NOT_SUBSCRIBED,
          `the framework is not subscribed to ${unknown.map((r) => `'${r}'`).join(', ')}`,
        );
      const row = await this.dataSource.manager.findOneOrFail(FrameworkEntity, { where: { id: fw.id } });
      const set = new Set(row.suppressedRoles);
      for (const r of roles) suppress ? set.add(r) : set.delete(r);
      await this.dataSource.manager.update(FrameworkEntity, { id: fw.id }, { suppressedRoles: [...set].sort() });
      if (suppress) this.allocator.suppressOffers(fw.id, roles);
      else {
        this.allocator.reviveOffers(fw.id, roles);
        this.requestCycle();
      }
    });
  }

  kill(socket: Socket, msg: Kill): Promise<void> {
    return this.exclusive(async () => {
      const fw = this.requireFramework(socket);
      const task = await this.dataSource.manager.findOne(TaskEntity, { where: { frameworkId: fw.id, taskId: msg.taskId } });
      if (!task) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_TASK, `the framework has no task '${msg.taskId}'`);
      if (isTerminal(task.state)) return;
      const agent = this.agents.get(task.agentId)?.socket;
      if (agent && task.state !== TaskState.STAGING)
        agent.emit('kill', { frameworkId: fw.id, taskId: task.taskId, gracePeriodSeconds: msg.gracePeriodSeconds ?? KILL_GRACE_SECONDS });
      else {
        // Not running anywhere yet (or its agent is away): killed here.
        agent?.emit('kill', { frameworkId: fw.id, taskId: task.taskId, gracePeriodSeconds: 0 });
        await this.masterUpdate([task], TaskState.KILLED, 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it started');
      }
    });
  }

  /**
   * Acknowledgements are group-committed outside the master's queue (they change no state the
   * allocator or the offers depend on): one statement marks a whole batch. An acknowledgement
   * lost in a crash only means the update is sent again. They are written in the journal's
   * `background` lane: nobody waits for them, and written side by side with the status updates
   * (on a connection of their own) they slowed those down by half.
   */
  async acknowledge(socket: Socket, msg: Acknowledge): Promise<void> {
    const fw = this.requireFramework(socket);
    await this.acks.push({ frameworkId: fw.id, taskId: msg.taskId, updateUuid: msg.updateUuid });
  }

  private readonly acks = new GroupCommit<{ frameworkId: string; taskId: string; updateUuid: string }, void>(
    (flush) => this.journal.run('background', flush),
    async (batch) => {
      await this.dataSource.query(
        `UPDATE task_status_updates u SET acknowledged_at = now()
           FROM unnest($1::text[], $2::text[], $3::uuid[]) AS v(framework_id, task_id, update_uuid), tasks t
          WHERE u.update_uuid = v.update_uuid AND t.id = u.task_ref AND t.framework_id = v.framework_id AND t.task_id = v.task_id AND u.acknowledged_at IS NULL`,
        [batch.map((b) => b.item.frameworkId), batch.map((b) => b.item.taskId), batch.map((b) => b.item.updateUuid)],
      );
      for (const b of batch) b.resolve();
    },
  );

  reconcile(socket: Socket, msg: { tasks: Array<{ taskId: string }> }): Promise<void> {
    return this.exclusive(async () => {
      const fw = this.requireFramework(socket);
      const db = this.dataSource.manager;
      const tasks = msg.tasks.length
        ? await db.find(TaskEntity, { where: { frameworkId: fw.id, taskId: In(msg.tasks.map((t) => t.taskId)) } })
        : await db.find(TaskEntity, { where: { frameworkId: fw.id, state: Not(In([...TERMINAL_TASK_STATES])) } });
      const known = new Set(tasks.map((t) => t.taskId));
      const send = (status: StatusUpdate) => fw.socket?.emit('update', { status });
      for (const t of tasks) {
        send({
          updateUuid: randomUUID(),
          frameworkId: fw.id,
          taskId: t.taskId,
          agentId: t.agentId,
          state: t.state as WireTaskState,
          reason: 'REASON_RECONCILIATION',
          timestamp: t.updatedAt.toISOString(),
          source: 'SOURCE_MASTER',
        });
      }
      for (const t of msg.tasks.filter((t) => !known.has(t.taskId))) {
        send({
          updateUuid: randomUUID(),
          frameworkId: fw.id,
          taskId: t.taskId,
          agentId: 'unknown',
          state: 'LOST',
          reason: 'REASON_RECONCILIATION',
          message: 'the task is unknown',
          timestamp: new Date().toISOString(),
          source: 'SOURCE_MASTER',
        });
      }
    });
  }

  answerInverseOffer(socket: Socket, msg: InverseOfferAnswer): Promise<void> {
    return this.exclusive(async () => {
      const fw = this.requireFramework(socket);
      const io = this.inverseOffers.get(msg.inverseOfferId);
      if (!io || io.frameworkId !== fw.id)
        throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_OFFER, `no inverse offer ${msg.inverseOfferId} for this framework`);
      this.inverseOffers.delete(io.id);
      const agent = this.agents.get(io.agentId);
      if (agent?.inAllocator) this.allocator.respondToInverseOffer(io.agentId, fw.id, msg.accept);
      if (agent) {
        await this.dataSource.manager.upsert(
          InverseOfferResponseEntity,
          {
            hostname: agent.hostname,
            ip: '',
            frameworkId: fw.id,
            status: msg.accept ? InverseOfferStatus.ACCEPT : InverseOfferStatus.DECLINE,
            updatedAt: new Date(),
          },
          ['hostname', 'ip', 'frameworkId'],
        );
      }
    });
  }

  /** Status updates not yet acknowledged go out again (oldest first, per framework). */
  private async resendUnacknowledged(frameworkId?: string, minAgeSeconds = 1): Promise<void> {
    const connected = [...this.frameworks.values()].filter((f) => f.socket && (!frameworkId || f.id === frameworkId));
    if (!connected.length) return;
    const rows: Array<{
      framework_id: string;
      task_id: string;
      agent_id: string;
      state: string;
      reason: string | null;
      message: string | null;
      update_uuid: string;
      at: Date;
      source: string;
    }> = await this.dataSource.query(
      `SELECT t.framework_id, t.task_id, t.agent_id, u.state, u.reason, u.message, u.update_uuid, u.at, u.source
         FROM task_status_updates u JOIN tasks t ON t.id = u.task_ref
        WHERE u.acknowledged_at IS NULL AND t.framework_id = ANY($1) AND u.at <= now() - make_interval(secs => $2)
        ORDER BY u.id LIMIT 5000`,
      [connected.map((f) => f.id), minAgeSeconds],
    );
    for (const r of rows) {
      this.frameworks.get(r.framework_id)?.socket?.emit('update', {
        status: {
          updateUuid: r.update_uuid,
          frameworkId: r.framework_id,
          taskId: r.task_id,
          agentId: r.agent_id,
          state: r.state as WireTaskState,
          ...(r.reason ? { reason: r.reason } : {}),
          ...(r.message ? { message: r.message } : {}),
          timestamp: new Date(r.at).toISOString(),
          source: r.source as StatusUpdate['source'],
        },
      });
    }
  }

  // ------------------------------------------------------------------ reads

  /** Resources offered but not yet answered, by framework. */
  outstandingOffers(): OutstandingOffer[] {
    return [...this.offers.values()];
  }

  /** Whether the framework has a live session with this control plane. */
  isFrameworkConnected(frameworkId: string): boolean {
    return this.frameworks.get(frameworkId)?.socket !== undefined;
  }

  /** Whether the agent has a live session with this control plane. */
  isAgentConnected(agentId: string): boolean {
    return this.agents.get(agentId)?.socket !== undefined;
  }
}
