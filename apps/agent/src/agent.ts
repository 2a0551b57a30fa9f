/**
 * The agent: registers its machine with the control plane over /agents, heartbeats, runs the
 * tasks it is sent and reports their states. It reconnects forever and re-registers after
 * every reconnect with the tasks it is running. Status updates go through a journal on disk
 * and leave it only when the control plane has acknowledged them, in order.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tls from 'node:tls';
import {
  type AgentCalls,
  type AgentEvents,
  AGENTS_NAMESPACE,
  type KillTask,
  LaunchTask,
  MasterUrls,
  notLeader,
  parseMessage,
  reconnectElsewhere,
  type RegisterAgent,
  type Reply,
  type ResourceEntry,
  type StatusUpdate,
} from '@arbiter/contracts';
import pino, { type Logger } from 'pino';
import { io, type Socket } from 'socket.io-client';
import { UpdateJournal } from './journal';
import { type TaskEvent, TaskRunner, type TaskRunnerOptions } from './tasks';

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
  /** How tasks run: their default OS user, pids limit, disk checks (see TaskRunnerOptions). */
  tasks?: TaskRunnerOptions;
  logger?: Logger;
}

export const AGENT_VERSION = '0.1.0';
/** First and longest delay before an unacknowledged status update is sent again. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** How often an agent whose machine is down for maintenance asks to register again. */
const MACHINE_DOWN_RETRY_MS = 15_000;

export class Agent {
  readonly log: Logger;
  private readonly socket: Socket<AgentEvents, AgentCalls>;
  private readonly journal: UpdateJournal;
  readonly tasks: TaskRunner;
  private agentId?: string;
  private registered = false;
  private heartbeat?: NodeJS.Timeout;
  private readonly stateFile: string;
  private stopped = false;
  private pendingReconnect?: NodeJS.Timeout;
  /** The control planes to reach (the leader among them). */
  private readonly masters: MasterUrls;

  constructor(private readonly options: AgentOptions) {
    this.log = options.logger ?? pino({ name: 'arbiter-agent' });
    fs.mkdirSync(options.workDir, { recursive: true });
    this.stateFile = path.join(options.workDir, 'agent.json');
    fs.chmodSync(options.workDir, 0o711);
    if (fs.existsSync(this.stateFile)) this.agentId = (JSON.parse(fs.readFileSync(this.stateFile, 'utf8')) as { agentId?: string }).agentId;
    this.journal = new UpdateJournal(path.join(options.workDir, 'updates'));
    this.tasks = new TaskRunner(options.workDir, (e) => this.record(e), options.tasks);
    const { isolator } = this.tasks;
    if (isolator.mode === 'posix')
      this.log.warn(
        'no cgroups this agent may create: tasks are isolated by process groups and OS users only; memory is enforced by polling, CPU and pids are not limited',
      );
    else this.log.info({ isolation: isolator.mode, controllers: isolator.controllers, taskUser: this.tasks.taskUser }, 'task isolation');
    this.masters = new MasterUrls(options.master);
    this.socket = io(new URL(AGENTS_NAMESPACE, this.masters.current).toString(), {
      auth: { token: options.token },
      autoConnect: false,
      reconnection: true,
      reconnectionDelay: 250,
      reconnectionDelayMax: 5_000,
      transports: ['websocket'],
      forceNew: true,
      // Node's `ca` replaces the built-in roots: keep them, and add the given ones.
      ...(options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {}),
    });
    this.socket.on('connect', () => {
      this.masters.connected();
      void this.register();
    });
    this.socket.on('disconnect', (reason) => {
      this.registered = false;
      this.log.warn({ reason }, 'disconnected from the control plane; reconnecting');
      // socket.io reconnects by itself except after the server closed the connection (it took
      // the agent for lost, say, after a pause): then the agent reconnects and registers again.
      if (reason === 'io server disconnect' && !this.stopped) {
        const retry = setTimeout(() => {
          if (!this.stopped && !this.socket.connected) this.socket.connect();
        }, 1_000);
        this.pendingReconnect = retry;
      }
    });
    this.socket.on('connect_error', (err: Error & { data?: { code?: string } }) => {
      const code = err.data?.code;
      // A standby (it names the leader) or no answer: the leader, or the next URL.
      const leader = notLeader(err);
      if (leader !== undefined || !code) reconnectElsewhere(this.socket, AGENTS_NAMESPACE, this.masters, leader, () => !this.stopped);
      if (leader !== undefined) {
        this.log.info({ leader, next: this.masters.current }, 'the control plane is a standby; going to the leader');
        return;
      }
      if (code?.startsWith('AUTH_') || code === 'FORBIDDEN')
        this.log.error({ code }, `the control plane refused the token: ${err.message}`);
      else if (/certificate|self[- ]signed|CERT_|TLS/i.test(`${err.message} ${String((err as { description?: unknown }).description)}`))
        this.log.error({ err: err.message }, "the control plane's certificate is not trusted (give its CA with --ca or ARBITER_CA_FILE)");
      else this.log.debug({ err: err.message }, 'cannot reach the control plane yet');
    });
    this.socket.on('launch', (payload: unknown, ack?: (r: Reply) => void) => {
      const msg = parseMessage(LaunchTask, payload);
      if (!msg.ok) return ack?.({ ok: false, error: msg.error });
      if (this.tasks.has(msg.value.frameworkId, msg.value.task.taskId))
        return ack?.({ ok: false, error: { code: 'DUPLICATE_TASK', message: `task ${msg.value.task.taskId} is already running here` } });
      this.log.info({ frameworkId: msg.value.frameworkId, taskId: msg.value.task.taskId }, 'launching task');
      this.tasks.launch(msg.value);
      ack?.({ ok: true });
    });
    this.socket.on('kill', (payload: KillTask, ack?: (r: Reply) => void) => {
      const known = this.tasks.kill(payload.frameworkId, payload.taskId, payload.gracePeriodSeconds ?? 5);
      this.log.info({ frameworkId: payload.frameworkId, taskId: payload.taskId, known }, 'kill requested');
      ack?.({ ok: true });
    });
  }

  /** Recovers checkpointed tasks, then connects. */
  start(): void {
    this.tasks.recover();
    this.socket.connect();
  }

  get id(): string | undefined {
    return this.agentId;
  }

  get pendingUpdates(): number {
    return this.journal.size;
  }

  /**
   * The agent's resources (and attributes, when given) changed while it runs: re-detected,
   * reconfigured, or oversubscribed (revocable) resources added or taken back. The control plane
   * is told at once (Mesos's UPDATE_SLAVE); a registration after a reconnect reports them too.
   * Resolves once the control plane has taken them, rejects with its refusal.
   */
  async updateResources(resources: ResourceEntry[], attributes?: Record<string, string | number>): Promise<void> {
    this.options.resources = resources;
    if (attributes) this.options.attributes = attributes;
    this.log.info({ resources: resources.length }, 'resources changed');
    if (!this.registered) return;
    const reply = (await this.socket.timeout(30_000).emitWithAck('update', { resources, ...(attributes ? { attributes } : {}) })) as Reply;
    if (!reply.ok) {
      this.log.error({ error: reply.error }, `the control plane refused the new resources: ${reply.error.message}`);
      throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    }
  }

  private async register(): Promise<void> {
    const msg: RegisterAgent = {
      ...(this.agentId ? { agentId: this.agentId } : {}),
      hostname: this.options.hostname,
      resources: this.options.resources,
      attributes: this.options.attributes,
      version: AGENT_VERSION,
      isolation: {
        mode: this.tasks.isolator.mode,
        controllers: this.tasks.isolator.controllers,
        taskUser: this.tasks.taskUser,
        diskQuota: this.tasks.diskChecked,
      },
      tasks: this.tasks.live(new Set(this.journal.pending().map((p) => `${p.update.frameworkId}/${p.update.taskId}`))),
    };
    try {
      const reply = (await this.socket.timeout(30_000).emitWithAck('register', msg)) as Reply<{
        agentId: string;
        heartbeatIntervalSeconds: number;
      }>;
      if (!reply.ok) {
        // Down for maintenance: it asks again until an operator brings the machine up.
        if (reply.error.code === 'MACHINE_DOWN') {
          this.log.warn({ retryInMs: MACHINE_DOWN_RETRY_MS }, reply.error.message);
          clearTimeout(this.pendingReconnect);
          this.pendingReconnect = setTimeout(() => {
            if (!this.stopped && this.socket.connected) void this.register();
          }, MACHINE_DOWN_RETRY_MS);
          return;
        }
        this.log.error({ error: reply.error }, `registration refused: ${reply.error.message}`);
        return;
      }
      if (reply.agentId !== this.agentId) {
        this.agentId = reply.agentId;
        fs.writeFileSync(this.stateFile, JSON.stringify({ agentId: reply.agentId }), { mode: 0o600 });
      }
      this.registered = true;
      this.log.info({ agentId: reply.agentId, tasks: msg.tasks?.length ?? 0 }, 'registered');
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = setInterval(() => this.socket.connected && this.socket.emit('heartbeat', {}), reply.heartbeatIntervalSeconds * 1000);
      this.heartbeat.unref();
      this.flush();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'registration got no answer; retrying on the next connection');
      this.socket.disconnect().connect();
    }
  }

  /** A task changed state: journal it, then send it. */
  private record(e: TaskEvent): void {
    const update: StatusUpdate = {
      updateUuid: randomUUID(),
      frameworkId: e.frameworkId,
      taskId: e.taskId,
      agentId: this.agentId ?? 'unregistered',
      state: e.state,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.message ? { message: e.message } : {}),
      timestamp: new Date().toISOString(),
      source: 'SOURCE_AGENT',
    };
    this.journal.append(update);
    this.log.info({ taskId: e.taskId, state: e.state, reason: e.reason }, 'task state');
    this.flush();
  }

  /**
   * Sends journaled updates while registered: each task's in order, the next once the previous
   * is acknowledged; different tasks' side by side (as Mesos's status update streams).
   */
  private flush(): void {
    if (!this.registered || this.stopped) return;
    const oldest = new Set<string>();
    for (const next of this.journal.pending()) {
      const task = `${next.update.frameworkId}\u0000${next.update.taskId}`;
      if (oldest.has(task)) continue;
      oldest.add(task);
      if (this.sending.has(task)) continue;
      this.sending.add(task);
      void this.send(task, next);
    }
  }

  /** Tasks with an update on its way. */
  private readonly sending = new Set<string>();
  /** A retry of updates the control plane refused or did not answer, and its next delay. */
  private retryTimer?: NodeJS.Timeout;
  private retryMs = RETRY_MIN_MS;

  /**
   * An update was refused or got no answer: it is sent again after a delay that doubles up to
   * RETRY_MAX_MS, forever, until acknowledged (a registration also sends it again at once).
   */
  private retryLater(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flush();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private async send(task: string, next: { file: string; update: StatusUpdate }): Promise<void> {
    let sent = false;
    try {
      const agentId = this.agentId;
      if (agentId === undefined) return;
      const reply = (await this.socket.timeout(10_000).emitWithAck('status', { ...next.update, agentId })) as Reply;
      if (reply.ok) sent = true;
      else if (reply.error.code === 'INVALID_MESSAGE') {
        this.log.error({ error: reply.error, update: next.update }, 'the control plane cannot read this update; dropping it');
        sent = true;
      }
      // Otherwise refused: sent again later.
    } catch {
      // No answer: sent again later.
    } finally {
      this.sending.delete(task);
    }
    if (!sent) {
      this.retryLater();
      return;
    }
    this.retryMs = RETRY_MIN_MS;
    this.journal.remove(next.file);
    this.flush();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Killed tasks end (and their ends are recorded and sent) before the agent lets go of them.
    if (this.options.killTasksOnExit) await this.tasks.killAll();
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.pendingReconnect) clearTimeout(this.pendingReconnect);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.tasks.close();
    this.socket.disconnect();
  }
}
