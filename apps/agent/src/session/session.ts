/**
 * The agent's session with the control plane over /agents: it connects (to the leader among
 * the given control planes), registers with what the executors report, heartbeats, and
 * reconnects forever, registering again after every reconnect. Launches and kills go to the
 * executors; their status updates come back through the update stream (status-updates.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tls from 'node:tls';
import {
  type AgentCalls,
  type AgentExecutorCalls,
  type AgentHeartbeat,
  type AgentEvents,
  type FilesBrowseReply,
  type FilesReadReply,
  type CreateVolumeReply,
  AGENTS_NAMESPACE,
  type KillTask,
  leftSilent,
  MasterUrls,
  notLeader,
  reconnectElsewhere,
  refusalOf,
  type RegisterAgent,
  type Reply,
  type ResourceEntry,
  socketClientOptions,
  type StatusUpdate,
} from '@arbiter/contracts';
import type { Logger } from 'pino';
import { io, type Socket } from 'socket.io-client';
import type { UpdateChannel } from './status-updates';

/** How an agent whose machine is down for maintenance asks to register again. */
const MACHINE_DOWN_RETRY_MS = 15_000;

export interface SessionOptions {
  master: string;
  token: string;
  workDir: string;
  /** PEM certificate(s) to trust for an https:// master (a private CA), besides the system's. */
  ca?: string;
  /** Milliseconds a connection attempt may take before the next control plane is tried (default 3 s). */
  connectTimeoutMs?: number;
  log: Logger;
}

export interface SessionHandlers {
  /** The registration to send (what the agent offers and runs now), without its id. */
  registration(): Omit<RegisterAgent, 'agentId'>;
  /** Registered: send what waits. */
  registered(): void;
  /** What each heartbeat carries (the agent's health). */
  heartbeat(): AgentHeartbeat;
  launch(payload: unknown, ack?: (r: Reply) => void): void;
  kill(payload: KillTask, ack?: (r: Reply) => void): void;
  launchGroup(payload: unknown, ack?: (r: Reply) => void): void;
  shutdownExecutor(payload: unknown, ack?: (r: Reply) => void): void;
  frameworkMessage(payload: unknown, ack?: (r: Reply) => void): void;
  /** Sandbox files: a directory's entries, a file's bytes (answered in the acknowledgement). */
  filesBrowse(payload: unknown, ack?: (r: Reply<FilesBrowseReply>) => void): void;
  filesRead(payload: unknown, ack?: (r: Reply<FilesReadReply>) => void): void;
  /** Persistent volumes: made and removed when the control plane says (answered in the acknowledgement). */
  createVolume(payload: unknown, ack?: (r: Reply<CreateVolumeReply>) => void): void;
  destroyVolume(payload: unknown, ack?: (r: Reply) => void): void;
}

export class Session implements UpdateChannel {
  private readonly socket: Socket<AgentEvents, AgentCalls & AgentExecutorCalls>;
  private readonly log: Logger;
  private agentId?: string;
  private registered = false;
  private heartbeat?: NodeJS.Timeout;
  private readonly stateFile: string;
  private stopped = false;
  private pendingReconnect?: NodeJS.Timeout;
  /** The control planes to reach (the leader among them). */
  private readonly masters: MasterUrls;
  /** Resources changed while a registration was on its way (it carries the old ones): sent once registered. */
  private pendingUpdate?: { resources: ResourceEntry[]; attributes?: Record<string, string | number> };

  constructor(
    options: SessionOptions,
    private readonly handlers: SessionHandlers,
  ) {
    this.log = options.log;
    this.stateFile = path.join(options.workDir, 'agent.json');
    if (fs.existsSync(this.stateFile)) this.agentId = (JSON.parse(fs.readFileSync(this.stateFile, 'utf8')) as { agentId?: string }).agentId;
    this.masters = new MasterUrls(options.master);
    this.socket = io(
      new URL(AGENTS_NAMESPACE, this.masters.current).toString(),
      socketClientOptions({
        token: options.token,
        connectTimeoutMs: options.connectTimeoutMs,
        // Node's `ca` replaces the built-in roots: keep them, and add the given ones.
        ...(options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {}),
      }),
    );
    this.socket.on('connect', () => {
      this.masters.connected();
      void this.register();
    });
    this.socket.on('disconnect', (reason) => {
      this.registered = false;
      // A control plane that stopped answering (paused, cut off): reconnect to the next one.
      leftSilent(this.socket, AGENTS_NAMESPACE, this.masters, reason);
      if (this.stopped) this.log.info({ reason }, 'disconnected from the control plane (the agent is stopping)');
      else this.log.warn({ reason, next: this.masters.current }, 'disconnected from the control plane; reconnecting');
      // socket.io reconnects by itself except after the server closed the connection (it took
      // the agent for lost, say, after a pause): then the agent reconnects and registers again.
      if (reason === 'io server disconnect' && !this.stopped) {
        const retry = setTimeout(() => {
          if (!this.stopped && !this.socket.connected) this.socket.connect();
        }, 1_000);
        this.pendingReconnect = retry;
      }
    });
    this.socket.on('connect_error', (err: Error & { data?: { code?: string } }) => this.connectError(err));
    this.socket.on('launch', (payload: unknown, ack?: (r: Reply) => void) => handlers.launch(payload, ack));
    this.socket.on('kill', (payload: KillTask, ack?: (r: Reply) => void) => handlers.kill(payload, ack));
    this.socket.on('launchGroup', (payload: unknown, ack?: (r: Reply) => void) => handlers.launchGroup(payload, ack));
    this.socket.on('shutdownExecutor', (payload: unknown, ack?: (r: Reply) => void) => handlers.shutdownExecutor(payload, ack));
    this.socket.on('frameworkMessage', (payload: unknown, ack?: (r: Reply) => void) => handlers.frameworkMessage(payload, ack));
    this.socket.on('filesBrowse', (payload: unknown, ack?: (r: Reply<FilesBrowseReply>) => void) => handlers.filesBrowse(payload, ack));
    this.socket.on('filesRead', (payload: unknown, ack?: (r: Reply<FilesReadReply>) => void) => handlers.filesRead(payload, ack));
    this.socket.on('createVolume', (payload: unknown, ack?: (r: Reply<CreateVolumeReply>) => void) => handlers.createVolume(payload, ack));
    this.socket.on('destroyVolume', (payload: unknown, ack?: (r: Reply) => void) => handlers.destroyVolume(payload, ack));
  }

  connect(): void {
    this.socket.connect();
  }

  get id(): string | undefined {
    return this.agentId;
  }

  // UpdateChannel
  ready(): boolean {
    return this.registered && !this.stopped;
  }

  async send(update: StatusUpdate): Promise<Reply> {
    return (await this.socket.timeout(10_000).emitWithAck('status', update)) as Reply;
  }

  /** Another call (see outbox.ts); rejects when no answer came within 10 s. */
  async call(event: keyof AgentExecutorCalls, payload: unknown): Promise<Reply> {
    return (await this.socket.timeout(10_000).emitWithAck(event, payload)) as Reply;
  }

  /**
   * New resources (and attributes) for the control plane (Mesos's UPDATE_SLAVE). Unregistered,
   * they wait: a registration not yet sent carries them, one already on its way is followed by
   * this update once it is answered. Rejects with the control plane's refusal.
   */
  async update(resources: ResourceEntry[], attributes?: Record<string, string | number>): Promise<void> {
    if (!this.registered) {
      this.pendingUpdate = { resources, ...(attributes ? { attributes } : {}) };
      return;
    }
    const reply = (await this.socket.timeout(30_000).emitWithAck('update', { resources, ...(attributes ? { attributes } : {}) })) as Reply;
    if (!reply.ok) {
      this.log.error({ error: reply.error }, `the control plane refused the new resources: ${reply.error.message}`);
      throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    }
  }

  /** No reconnecting and no updates sent from now on (the agent is stopping). */
  stopping(): void {
    this.stopped = true;
  }

  stop(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.pendingReconnect) clearTimeout(this.pendingReconnect);
    this.socket.disconnect();
  }

  private connectError(err: Error & { data?: { code?: string } }): void {
    const code = err.data?.code;
    const leader = notLeader(err);
    // A standby (it names the leader), another refusal that retrying may heal, or no answer:
    // the leader, or the next URL. A refused token is not retried.
    if (!(code?.startsWith('AUTH_') || code === 'FORBIDDEN'))
      reconnectElsewhere(this.socket, AGENTS_NAMESPACE, this.masters, refusalOf(err), () => !this.stopped);
    if (leader !== undefined) {
      this.log.info({ leader, next: this.masters.current }, 'the control plane is a standby; going to the leader');
      return;
    }
    if (code?.startsWith('AUTH_') || code === 'FORBIDDEN') this.log.error({ code }, `the control plane refused the token: ${err.message}`);
    else if (/certificate|self[- ]signed|CERT_|TLS/i.test(`${err.message} ${String((err as { description?: unknown }).description)}`))
      this.log.error({ err: err.message }, "the control plane's certificate is not trusted (give its CA with --ca or ARBITER_CA_FILE)");
    else this.log.debug({ err: err.message }, 'cannot reach the control plane yet');
  }

  /** Sends the resources that changed while the registration was on its way (its refusal is logged by update). */
  private sendPendingUpdate(): void {
    const pending = this.pendingUpdate;
    this.pendingUpdate = undefined;
    if (pending) this.update(pending.resources, pending.attributes).catch(() => undefined);
  }

  private async register(): Promise<void> {
    const msg: RegisterAgent = { ...(this.agentId ? { agentId: this.agentId } : {}), ...this.handlers.registration() };
    // The registration carries the resources as they are now.
    this.pendingUpdate = undefined;
    try {
      const reply = (await this.socket.timeout(30_000).emitWithAck('register', msg)) as Reply<{
        agentId: string;
        heartbeatIntervalSeconds: number;
      }>;
      if (!reply.ok) {
        // Down for maintenance, or its hostname still held by a connection of another agent
        // (a restart with a fresh work directory): it asks again until that is over.
        if (reply.error.code === 'MACHINE_DOWN' || reply.error.code === 'AGENT_HOSTNAME_IN_USE') {
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
        try {
          fs.writeFileSync(this.stateFile, JSON.stringify({ agentId: reply.agentId }), { mode: 0o600 });
        } catch (err) {
          // Kept in memory: a restart before it is written registers as a new agent.
          this.log.error({ err: (err as Error).message }, 'cannot record the agent id');
        }
      }
      this.registered = true;
      this.log.info({ agentId: reply.agentId, tasks: msg.tasks?.length ?? 0 }, 'registered');
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = setInterval(
        () => this.socket.connected && this.socket.emit('heartbeat', this.handlers.heartbeat()),
        reply.heartbeatIntervalSeconds * 1000,
      );
      this.heartbeat.unref();
      this.handlers.registered();
      this.sendPendingUpdate();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'registration got no answer; retrying on the next connection');
      this.socket.disconnect().connect();
    }
  }
}
