/**
 * The agent: one direction, session -> executors -> containerizer -> isolators / launcher. Its
 * session registers the machine with the control plane, heartbeats and reconnects forever; the
 * executors (TaskRunner) run the tasks it is sent; their status updates go through a journal on
 * disk and leave it only when the control plane has acknowledged them, in order.
 */
import type { LoadedModules } from '@arbiter/modules';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type AgentCapabilities,
  type AgentHealth,
  FrameworkMessage,
  type KillTask,
  LaunchGroup,
  LaunchTask,
  parseMessage,
  PROTOCOL_ERRORS,
  type RegisterAgent,
  type Reply,
  type ResourceEntry,
  ShutdownExecutor,
} from '@arbiter/contracts';
import pino, { type Logger } from 'pino';
import { createProvisioner } from './containerizer/provisioner';
import { logIsolation } from './isolation-log';
import { DEFAULT_GC_INTERVAL_MS, diskUsage, GarbageCollector, type GcOptions, sandboxDisk } from './gc/gc';
import type { ProvisionerOptions } from './containerizer/provisioner/options';
import { ExecutorApi, type ExecutorApiOptions } from './executors/api/executor-api';
import { durationMs } from './executors/executor-protocol';
import { type ExecutorOptions, Executors } from './executors/executors';
import { Files } from './files/files';
import { LogRotation, type LogRotationOptions } from './files/log-rotation';
import { TaskRunner, type TaskRunnerOptions } from './executors/task-runner';
import { UpdateJournal } from './session/journal';
import { Oversubscription, type OversubscriptionOptions } from './oversubscription/oversubscription';
import { Outbox } from './session/outbox';
import { Session } from './session/session';
import { StatusUpdates } from './session/status-updates';

export interface AgentOptions {
  master: string;
  token: string;
  hostname: string;
  resources: ResourceEntry[];
  attributes: Record<string, string | number>;
  workDir: string;
  /** Kill running tasks when the agent stops (default: leave them; a restarted agent recovers them). */
  killTasksOnExit?: boolean;
  /** PEM certificate(s) to trust for an https:// master (a private CA), besides the system's. */
  ca?: string;
  /** Milliseconds a connection attempt may take before the next control plane is tried (default 3 s). */
  connectTimeoutMs?: number;
  /** How tasks run: their default OS user, pids limit, disk checks, sandbox directory (see TaskRunnerOptions). */
  tasks?: TaskRunnerOptions;
  /**
   * Free space the agent keeps on its work directory's filesystem for its journal and
   * checkpoints (default 32 MiB): below it, launches are refused (DROPPED) rather than started
   * with nowhere to record them.
   */
  workDirReserveBytes?: number;
  /** Executors and their API: where it listens, the registration timeout (see ExecutorOptions, ExecutorApiOptions). */
  executors?: ExecutorOptions & ExecutorApiOptions;
  /** Garbage collection of what ended tasks leave (Mesos's --gc_delay, --gc_disk_headroom; see gc/gc.ts). */
  gc?: GcOptions;
  /** Where container images come from: default registry, mirrors, plain-HTTP allow-list, credentials, CA directory, offline archives, store limit. */
  images?: ProvisionerOptions;
  /** Task logs (stdout, stderr) rotated past a size, with a kept count (see LogRotationOptions). */
  logs?: LogRotationOptions;
  /** Modules loaded from `--modules` (docs/modules.md): hooks around executors and containers, oversubscription. */
  modules?: LoadedModules;
  oversubscription?: OversubscriptionOptions;
  logger?: Logger;
}

export const AGENT_VERSION = '0.1.0';
const DEFAULT_WORK_DIR_RESERVE = 32 * 1024 * 1024;

export type { AgentHealth } from '@arbiter/contracts';

export class Agent {
  readonly log: Logger;
  private readonly session: Session;
  private readonly updates: StatusUpdates;
  readonly tasks: TaskRunner;
  readonly executors: Executors;
  readonly executorApi: ExecutorApi;
  private readonly outbox: Outbox;
  /** What the agent can contain tasks with, found at start (sent with every registration). */
  readonly capabilities: AgentCapabilities;
  readonly gc: GarbageCollector;
  private readonly files: Files;
  private readonly logRotation: LogRotation;
  /** Revocable resources estimated and reclaimed, when a module does either (oversubscription/). */
  readonly oversubscription?: Oversubscription;
  /** Resolves once the executor API listens (start() connects after it). */
  listening?: Promise<void>;

  constructor(private readonly options: AgentOptions) {
    this.log = options.logger ?? pino({ name: 'arbiter-agent' });
    fs.mkdirSync(options.workDir, { recursive: true });
    fs.chmodSync(options.workDir, 0o711);
    this.session = new Session(
      {
        master: options.master,
        token: options.token,
        workDir: options.workDir,
        ca: options.ca,
        connectTimeoutMs: options.connectTimeoutMs,
        log: this.log,
      },
      {
        registration: () => this.registration(),
        registered: () => {
          this.updates.flush();
          this.outbox.flush();
        },
        heartbeat: () => ({ health: this.health() }),
        launch: (payload, ack) => this.launch(payload, ack),
        kill: (payload, ack) => this.kill(payload, ack),
        launchGroup: (payload, ack) => this.launchGroup(payload, ack),
        shutdownExecutor: (payload, ack) => this.shutdownExecutor(payload, ack),
        frameworkMessage: (payload, ack) => this.frameworkMessage(payload, ack),
        filesBrowse: (payload, ack) => this.files.browse(payload, ack),
        filesRead: (payload, ack) => this.files.read(payload, ack),
        createVolume: (payload, ack) => this.tasks.containerizer.volumes.create(payload, ack),
        destroyVolume: (payload, ack) => this.tasks.containerizer.volumes.destroy(payload, ack),
      },
    );
    this.outbox = new Outbox(this.session, this.log);
    this.updates = new StatusUpdates(new UpdateJournal(path.join(options.workDir, 'updates')), this.session, this.log);
    // Images through the agent's own provisioner (skopeo and umoci), unless one is given.
    const images = options.tasks?.provisioner ? undefined : createProvisioner(options.workDir, options.images ?? {}, this.log);
    this.tasks = new TaskRunner(options.workDir, (e) => this.updates.record(e), {
      onError: (message, err) => this.log.error({ err: err.message }, message),
      ...(images ? { imageTools: { versions: images.versions, ...(images.problem ? { problem: images.problem } : {}) } } : {}),
      ...(images?.provisioner ? { provisioner: images.provisioner } : {}),
      ...options.tasks,
      ...(options.modules ? { hooks: { runner: options.modules.hooks, agentId: () => this.session.id } } : {}),
      fetch: { log: this.log, ...options.tasks?.fetch },
      // A port only reported (network/ports not enforced) is logged, besides its task's update.
      ports: { onReport: (c, message) => this.log.warn({ container: c.name }, message), ...options.tasks?.ports },
    });
    this.executors = new Executors(
      options.workDir,
      this.tasks.containerizer,
      {
        report: (e) => this.updates.record(e),
        exited: (m) => {
          this.log.info({ frameworkId: m.frameworkId, executorId: m.executorId, reason: m.reason }, `executor ended: ${m.message}`);
          this.outbox.send('executorExited', m);
        },
        message: (m) => this.outbox.send('executorMessage', m, false),
        agent: () => ({
          agentId: this.session.id,
          hostname: options.hostname,
          resources: options.resources,
          endpoint: this.executorApi.endpoint,
        }),
        onError: (message, err) => this.log.error({ err: err.message }, message),
      },
      {
        registrationTimeoutMs: durationMs(process.env.ARBITER_EXECUTOR_REGISTRATION_TIMEOUT),
        ...options.executors,
        fetcher: this.tasks.fetcher,
      },
    );
    this.executorApi = new ExecutorApi(this.executors);
    const { sandboxes } = this.tasks.containerizer;
    this.files = new Files(
      (ref) => (ref.executorId ? sandboxes.executorPathOf(ref.frameworkId, ref.executorId) : sandboxes.pathOf(ref.frameworkId, ref.taskId)),
      (message, err) => this.log.error({ err: err.message }, message),
    );
    this.logRotation = new LogRotation(
      () => [
        ...this.tasks.live().map((t) => sandboxes.pathOf(t.frameworkId, t.taskId)),
        ...this.executors.running().map((e) => sandboxes.executorPathOf(e.frameworkId, e.executorId)),
      ],
      options.logs,
      (message, err) => this.log.warn({ err: err.message }, message),
    );
    if (this.logRotation.maxBytes > 0)
      this.log.info({ maxBytes: this.logRotation.maxBytes, keep: this.logRotation.keep }, 'task logs rotated by size (copy and truncate)');
    this.updates.onAcknowledged = (u) => {
      this.executors.acknowledged(u.updateUuid);
      this.tasks.acknowledged(u.frameworkId, u.taskId, u.state);
    };
    // What ended tasks leave on disk goes after the GC delay, sooner as the disk fills.
    const collectable = [() => this.tasks.collectable(), () => this.executors.collectable()];
    this.gc = new GarbageCollector(collectable, () => diskUsage(sandboxes.root), options.gc, Date.now, {
      collected: (removed) =>
        this.log.info({ removed: removed.length, what: removed.slice(0, 10).map((c) => c.what) }, 'garbage collected'),
      failed: (err) => this.log.warn({ err: err.message }, 'garbage collection failed'),
    });
    const gcEvery = options.gc?.intervalMs ?? DEFAULT_GC_INTERVAL_MS;
    if (gcEvery > 0) this.gc.every(gcEvery);
    this.capabilities = this.tasks.containerizer.capabilities(this.tasks.limits.diskChecked);
    logIsolation(this.log, this.tasks.containerizer, this.capabilities);
    this.oversubscription = Oversubscription.of(this, () => options.resources, options.modules, options.oversubscription);
  }

  /** Recovers checkpointed tasks and executors, opens the executor API, then connects. */
  start(): void {
    this.recover();
    this.listening = this.executorApi.listen(this.options.executors).then(
      (at) => this.log.info(at, 'executor API listening'),
      (err: unknown) =>
        this.log.error({ err: (err as Error).message }, 'the executor API cannot listen: tasks that name an executor will fail'),
    );
    void this.listening.then(() => this.session.connect());
  }

  /** Finds the tasks and executors of an earlier run again, taking the ends it journaled but did not checkpoint. */
  recover(): void {
    this.executors.recover(this.updates.unacknowledgedUpdates());
    this.tasks.recover(this.updates.lastStates(), this.executors.liveCgroups(), this.executors.liveContainers());
  }

  /** Whether it can take tasks (room for its records, a journal that takes updates) and its sandboxes' disk; sent with heartbeats. */
  health(): AgentHealth {
    const problems: AgentHealth['problems'] = [];
    const reserve = this.options.workDirReserveBytes ?? DEFAULT_WORK_DIR_RESERVE;
    try {
      const st = fs.statfsSync(this.options.workDir);
      const free = st.bavail * st.bsize;
      if (free < reserve)
        problems.push({
          code: 'DISK_RESERVE_IN_USE',
          message: `its work directory ${this.options.workDir} has ${mib(free)} free, under the ${mib(reserve)} it keeps for its journal and checkpoints`,
        });
    } catch (err) {
      problems.push({
        code: 'WORK_DIR_UNREADABLE',
        message: `its work directory ${this.options.workDir} cannot be read: ${(err as Error).message}`,
      });
    }
    const failure = this.updates.journalFailure;
    if (failure) problems.push({ code: 'JOURNAL_UNWRITABLE', message: `its status update journal cannot be written: ${failure.message}` });
    const disk = sandboxDisk(this.tasks.containerizer.sandboxes.root, this.options.gc?.diskHeadroom);
    return { ok: problems.length === 0, problems, ...(disk ? { sandboxDisk: disk } : {}) };
  }

  get id(): string | undefined {
    return this.session.id;
  }

  get pendingUpdates(): number {
    return this.updates.size;
  }

  /**
   * The agent's resources (and attributes) changed while it runs: re-detected, reconfigured, or
   * revocable ones added or taken back. The control plane is told at once (Mesos's UPDATE_SLAVE),
   * and with a registration after a reconnect. Resolves once it took them, rejects with its refusal.
   */
  async updateResources(resources: ResourceEntry[], attributes?: Record<string, string | number>): Promise<void> {
    this.options.resources = resources;
    if (attributes) this.options.attributes = attributes;
    this.log.info({ resources: resources.length }, 'resources changed');
    await this.session.update(resources, attributes);
  }

  /** What the agent registers with: its machine, its isolation, and the tasks it runs (and those whose end is not acknowledged yet). */
  registration(): Omit<RegisterAgent, 'agentId'> {
    return {
      hostname: this.options.hostname,
      resources: this.options.resources,
      attributes: this.options.attributes,
      version: AGENT_VERSION,
      isolation: {
        mode: this.tasks.containerizer.cgroups.mode,
        controllers: this.tasks.containerizer.cgroups.controllers,
        taskUser: this.tasks.containerizer.taskUser,
        diskQuota: this.tasks.limits.diskChecked,
      },
      capabilities: this.capabilities,
      tasks: this.reportedTasks(),
      executors: this.executors.running(),
      health: this.health(),
    };
  }

  /**
   * The tasks to register with: those the executors run, or ended with their end not yet
   * acknowledged, and those refused at launch (DROPPED) whose update is not acknowledged yet.
   * The refused ones are reported DROPPED (with no resources: none were taken), so that the
   * control plane waits for their update instead of taking them for lost or launching them again.
   */
  private reportedTasks(): NonNullable<RegisterAgent['tasks']> {
    const unacknowledged = this.updates.unacknowledged();
    const tasks: NonNullable<RegisterAgent['tasks']> = [...this.tasks.live(unacknowledged), ...this.executors.live(unacknowledged)];
    for (const t of this.updates.dropped())
      if (!this.has(t.frameworkId, t.taskId) && !tasks.some((r) => r.frameworkId === t.frameworkId && r.taskId === t.taskId))
        tasks.push({ ...t, state: 'DROPPED', resources: [] });
    return tasks;
  }

  /** A launch from the control plane. */
  launch(payload: unknown, ack?: (r: Reply) => void): void {
    const msg = parseMessage(LaunchTask, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    const { frameworkId, task } = msg.value;
    if (!this.admit(frameworkId, [task], ack)) return;
    this.log.info({ frameworkId, taskId: task.taskId, executorId: task.executor?.executorId }, 'launching task');
    if (task.executor) this.executors.launch(msg.value);
    else this.tasks.launch(msg.value);
    ack?.({ ok: true });
  }

  /** A task group from the control plane (LAUNCH_GROUP): its tasks run under one DEFAULT executor. */
  launchGroup(payload: unknown, ack?: (r: Reply) => void): void {
    const msg = parseMessage(LaunchGroup, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    const { frameworkId, executor, tasks } = msg.value;
    const invalid = (message: string) => ack?.({ ok: false, error: { code: PROTOCOL_ERRORS.INVALID_MESSAGE, message } });
    if (executor.type !== 'DEFAULT') return invalid('a task group runs under an executor of type DEFAULT');
    const running = this.executors.find(frameworkId, executor.executorId);
    if (running && running.spec.type !== 'DEFAULT')
      return invalid(`executor ${executor.executorId} runs here already, and is not of type DEFAULT`);
    if (new Set(tasks.map((t) => t.taskId)).size !== tasks.length) return invalid('the tasks of a group need distinct task ids');
    if (!this.admit(frameworkId, tasks, ack)) return;
    const taskIds = tasks.map((t) => t.taskId);
    this.log.info({ frameworkId, executorId: executor.executorId, taskIds }, 'launching task group');
    this.executors.launchGroup(msg.value);
    ack?.({ ok: true });
  }

  /** Whether tasks may start: refused (DUPLICATE_TASK) when one runs already; each DROPPED while the agent is unhealthy. */
  private admit(frameworkId: string, tasks: Array<{ taskId: string }>, ack?: (r: Reply) => void): boolean {
    const dup = tasks.find((t) => this.has(frameworkId, t.taskId));
    if (dup) {
      ack?.({ ok: false, error: { code: 'DUPLICATE_TASK', message: `task ${dup.taskId} is already running here` } });
      return false;
    }
    const health = this.health();
    if (health.ok) return true;
    const message = `the agent cannot take tasks now: ${health.problems.map((p) => p.message).join('; ')}`;
    for (const { taskId } of tasks) {
      this.log.error({ frameworkId, taskId }, message);
      this.updates.record({ frameworkId, taskId, state: 'DROPPED', reason: 'REASON_CONTAINER_LAUNCH_FAILED', message });
    }
    ack?.({ ok: true });
    return false;
  }

  private has(frameworkId: string, taskId: string): boolean {
    return this.tasks.has(frameworkId, taskId) || this.executors.has(frameworkId, taskId);
  }

  /** A kill from the control plane: the command executor's task is signalled; an executor's is the executor's to kill (KILL). */
  kill(payload: KillTask, ack?: (r: Reply) => void): void {
    const known =
      this.executors.killTask(payload.frameworkId, payload.taskId, payload.gracePeriodSeconds) ||
      this.tasks.kill(payload.frameworkId, payload.taskId, payload.gracePeriodSeconds);
    this.log.info({ frameworkId: payload.frameworkId, taskId: payload.taskId, known }, 'kill requested');
    ack?.({ ok: true });
  }

  /** The scheduler's SHUTDOWN of an executor (or its framework's teardown). */
  shutdownExecutor(payload: unknown, ack?: (r: Reply) => void): void {
    const msg = parseMessage(ShutdownExecutor, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    const known = this.executors.shutdown(msg.value.frameworkId, msg.value.executorId);
    this.log.info({ ...msg.value, known }, 'executor shutdown requested');
    ack?.({ ok: true });
  }

  /** A scheduler's message for one of its executors (MESSAGE event); unreliable, as in Mesos. */
  frameworkMessage(payload: unknown, ack?: (r: Reply) => void): void {
    const msg = parseMessage(FrameworkMessage, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    if (this.executors.frameworkMessage(msg.value)) return ack?.({ ok: true });
    ack?.({
      ok: false,
      error: {
        code: PROTOCOL_ERRORS.UNKNOWN_TASK,
        message: `executor ${msg.value.executorId} of framework ${msg.value.frameworkId} is not subscribed on this agent`,
      },
    });
  }

  async stop(): Promise<void> {
    this.session.stopping();
    this.updates.stop();
    this.outbox.stop();
    this.logRotation.stop();
    this.oversubscription?.stop();
    // Killed tasks end (and their ends are recorded) before the agent lets go of them.
    if (this.options.killTasksOnExit) await Promise.all([this.tasks.killAll(), this.executors.killAll()]);
    this.gc.stop();
    this.tasks.close();
    this.executors.close();
    await this.executorApi.close().catch(() => undefined);
    await this.tasks.containerizer.runtime?.settled();
    this.session.stop();
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
