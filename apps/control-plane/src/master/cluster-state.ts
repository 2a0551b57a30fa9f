/**
 * The master's in-memory view of the cluster, next to the allocator: the agents and frameworks
 * connected, the offers outstanding, the live tasks. Postgres stays the source of truth; this is
 * what must be at hand on every message. The handlers of the master change it (each the part of
 * its noun), always in the kernel's order; everything else only reads it through the queries
 * at the end.
 */
import type { LoadedModules } from '@arbiter/modules';
import { LOADED_MODULES } from '../config/config.modules';
import { VolumeCatalog } from './volume-catalog';
import { HierarchicalAllocator, type ResourceEntry, Resources } from '@arbiter/allocator';
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { OfferBook } from './offer-book';
import type { TaskState } from './task-state';
import type { AppConfig } from '../config/config.schema';
import { CLOCK, type Clock } from '../kernel/clock';
import { assertOrdered } from '../kernel/order';
import type { OutboundQueue } from '../kernel/outbound';
import { ProtocolError } from '../kernel/protocol-error';
import { AgentRegistry, type AgentRegistryView, type AgentRuntime, type AgentSocket } from './agent-registry';
import { ExecutorRegistry, type ExecutorRegistryView } from './executor-registry';
import { type FrameworkConnection, FrameworkRegistry, type FrameworkRegistryView, type FrameworkRuntime } from './framework-registry';

export type { AgentRuntime, AgentSocket } from './agent-registry';
export type { FrameworkConnection, FrameworkRuntime } from './framework-registry';

/** The protocols frameworks speak: Arbiter's own (socket.io, the SDK) and Mesos's v1 scheduler HTTP API. */
export type FrameworkProtocol = 'arbiter' | 'mesos';

/** What a socket carries once registered or subscribed (socket.io's `socket.data`). */
export interface SessionData {
  agentId?: string;
  frameworkId?: string;
  /** What is queued for the connection's reader (a framework's): long answers wait for it to drain. */
  outbound?: OutboundQueue;
}

/** A socket's session data, typed. */
export const sessionOf = (socket: AgentSocket | FrameworkConnection): SessionData => socket.data as SessionData;

/**
 * A live task as the master keeps it: the fields of a stored task (tasks/task.entity.ts, which
 * satisfies this shape) without its relations.
 */
export interface LiveTask {
  id: string;
  taskId: string;
  frameworkId: string;
  agentId: string;
  name: string;
  role: string;
  resources: ResourceEntry[];
  command: Record<string, unknown> | null;
  /** Its kill policy's grace period (null or absent: the default), used when a kill names none. */
  killGracePeriodSeconds?: number | null;
  state: TaskState;
  createdAt: Date;
  updatedAt: Date;
}

/** One key per task: a framework's task ids are its own. */
export const taskKey = (frameworkId: string, taskId: string) => `${frameworkId}\u0000${taskId}`;

/**
 * The tasks that are not terminal, by framework and task id and by agent (a task never moves),
 * so that a status update needs no read and an agent's usage no scan of every task; and the
 * scalar resources they use per role, kept as they come and go, so that reading them (each
 * /metrics scrape) parses no task's resources.
 */
export class LiveTasks {
  private readonly byKey = new Map<string, LiveTask>();
  private readonly byAgent = new Map<string, Map<string, LiveTask>>();
  /** Per role: its live tasks, and their scalar resources in integer thousandths (sums that never drift). */
  private readonly byRole = new Map<string, { tasks: number; milli: Map<string, number> }>();

  get(frameworkId: string, taskId: string): LiveTask | undefined {
    return this.byKey.get(taskKey(frameworkId, taskId));
  }

  /** Adds a task as stored, without its command (the agent has it), labels or discovery (read from the database). */
  add(task: LiveTask): void {
    assertOrdered('adding a live task');
    const k = taskKey(task.frameworkId, task.taskId);
    this.delete(task.frameworkId, task.taskId);
    // A copy of its fields (the entity is a plain record here: only TypeORM reads its class).
    const row: LiveTask = Object.assign({}, task, { command: null, labels: undefined, discovery: undefined });
    this.byKey.set(k, row);
    let onAgent = this.byAgent.get(task.agentId);
    if (!onAgent) this.byAgent.set(task.agentId, (onAgent = new Map<string, LiveTask>()));
    onAgent.set(k, row);
    this.countRole(row, 1);
  }

  /** Adds a task's scalars to its role's sums (`sign` 1), or takes them out (-1). */
  private countRole(task: LiveTask, sign: 1 | -1): void {
    let totals = this.byRole.get(task.role);
    if (!totals) this.byRole.set(task.role, (totals = { tasks: 0, milli: new Map() }));
    totals.tasks += sign;
    for (const [name, v] of Resources.of(task.resources).scalarMilli()) totals.milli.set(name, (totals.milli.get(name) ?? 0) + sign * v);
    if (totals.tasks === 0) this.byRole.delete(task.role);
  }

  /** Per role with live tasks, the scalar resources they use. */
  *usedByRole(): Iterable<[role: string, used: Map<string, number>]> {
    for (const [role, { milli }] of this.byRole) yield [role, new Map([...milli].map(([name, v]) => [name, v / 1000]))];
  }

  delete(frameworkId: string, taskId: string): void {
    assertOrdered('taking a live task out');
    const k = taskKey(frameworkId, taskId);
    const task = this.byKey.get(k);
    if (!task) return;
    this.byKey.delete(k);
    this.countRole(task, -1);
    const onAgent = this.byAgent.get(task.agentId);
    onAgent?.delete(k);
    if (onAgent?.size === 0) this.byAgent.delete(task.agentId);
  }

  onAgent(agentId: string): Iterable<LiveTask> {
    return this.byAgent.get(agentId)?.values() ?? [];
  }

  /** Whether a live task runs on the agent. */
  anyOnAgent(agentId: string): boolean {
    return (this.byAgent.get(agentId)?.size ?? 0) > 0;
  }

  /** Every live task. */
  all(): Iterable<LiveTask> {
    return this.byKey.values();
  }

  clear(): void {
    this.byKey.clear();
    this.byAgent.clear();
    this.byRole.clear();
  }
}

export interface OutstandingInverseOffer {
  id: string;
  frameworkId: string;
  agentId: string;
}

@Injectable()
export class ClusterState {
  private readonly started: number;
  private current?: HierarchicalAllocator;
  /** The agents known (AgentRegistry, changed by the agents' handlers). */
  readonly agents: AgentRegistryView;
  /** The frameworks known (FrameworkRegistry, changed by the frameworks' handlers). */
  readonly frameworks: FrameworkRegistryView;
  /** The executors running (ExecutorRegistry, changed by the executors' handler). */
  readonly executors: ExecutorRegistryView;
  readonly offers = new OfferBook();
  readonly inverseOffers = new Map<string, OutstandingInverseOffer>();
  readonly liveTasks = new LiveTasks();
  /** Each agent's persistent volumes as the allocator offers them (their container paths, modes, creators). */
  readonly volumes = new VolumeCatalog();
  /** Framework and task ids of tasks whose launch is being written (duplicates for later accepts). */
  readonly launching = new Set<string>();
  /** Hostnames of machines DOWN for maintenance. */
  downHosts = new Set<string>();
  /** IPs of machines DOWN for maintenance (a machine may be named by its IP alone). */
  downIps = new Set<string>();
  /** Start (epoch ms) of each agent's scheduled unavailability, as last given to the allocator. */
  readonly unavailability = new Map<string, number | null>();
  /** Cycles run since start (for tests and metrics). */
  cycles = 0;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOADED_MODULES) private readonly modules: LoadedModules,
    private readonly agentRegistry: AgentRegistry,
    private readonly frameworkRegistry: FrameworkRegistry,
    private readonly executorRegistry: ExecutorRegistry,
  ) {
    this.started = clock.now();
    this.agents = agentRegistry;
    this.frameworks = frameworkRegistry;
    this.executors = executorRegistry;
  }

  /** The allocator, rebuilt from the database at start. */
  /** Whether the master has an allocator (it leads, or has led): standbys have none. */
  get hasAllocator(): boolean {
    return this.current !== undefined;
  }

  get allocator(): HierarchicalAllocator {
    if (!this.current) throw new Error('the allocator is used before the master has rebuilt its state');
    return this.current;
  }

  /** A new, empty allocator on the master's clock (seconds since start), with the configured Mesos settings and any policy modules. */
  resetAllocator(
    config: Pick<
      AppConfig,
      'allocationInterval' | 'minAllocatableResources' | 'fairSharingExcludedResourceNames' | 'filterGpuResources' | 'placement'
    >,
  ): HierarchicalAllocator {
    this.current = new HierarchicalAllocator({
      clock: { now: () => this.seconds() },
      ...(this.modules.sorter ? { sorterFactory: this.modules.sorter.factory } : {}),
      ...(this.modules.placement ? { placementFactory: this.modules.placement.factory } : {}),
      config: {
        allocationIntervalSeconds: config.allocationInterval,
        minAllocatableResources: config.minAllocatableResources,
        fairnessExcludeResourceNames: config.fairSharingExcludedResourceNames,
        filterGpuResources: config.filterGpuResources,
        placement: config.placement,
      },
    });
    this.agentRegistry.clear();
    this.frameworkRegistry.clear();
    this.executorRegistry.clear();
    for (const m of [this.offers, this.inverseOffers]) m.clear();
    this.liveTasks.clear();
    this.launching.clear();
    this.unavailability.clear();
    return this.current;
  }

  /** Seconds on the allocator's clock (monotonic, from the start of this control plane). */
  seconds(): number {
    return (this.clock.now() - this.started) / 1000;
  }

  /** The framework subscribed on this socket, or a NOT_SUBSCRIBED error. */
  frameworkOf(socket: FrameworkConnection): FrameworkRuntime {
    const runtime = this.frameworks.get(String(sessionOf(socket).frameworkId));
    if (runtime?.socket !== socket) throw new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, "send 'subscribe' first");
    return runtime;
  }

  /** The agent registered on this socket, if it still is. */
  agentOf(socket: AgentSocket): AgentRuntime | undefined {
    const runtime = this.agents.get(String(sessionOf(socket).agentId));
    return runtime?.socket === socket ? runtime : undefined;
  }
}
