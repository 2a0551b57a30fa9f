/**
 * @arbiter/scheduler-sdk: the client a framework's scheduler uses to talk to Arbiter.
 *
 *   const scheduler = new Scheduler({ master: 'http://127.0.0.1:8080', token, framework: { name: 'batch', roles: ['eng'] } });
 *   scheduler.on('offers', async (offers) => { ... await scheduler.launch(offer, [task]) ... });
 *   scheduler.on('update', (status) => { ... });   // acknowledged for you after the handlers ran
 *   await scheduler.start();
 *
 * Every call resolves with the control plane's answer or rejects with a SchedulerError carrying
 * the protocol's error code (or TIMEOUT, or CONNECTION_LOST when the connection dropped first;
 * a launch never answered is LAUNCH_UNKNOWN, and its tasks are reconciled, since the control
 * plane may have stored it). After a lost connection the client reconnects and re-subscribes
 * with its framework id, so its tasks survive within the failover timeout.
 */
import { EventEmitter } from 'node:events';
import * as tls from 'node:tls';
import {
  type Accept,
  type FrameworkCalls,
  type FrameworkEvents,
  type AcceptReply,
  type ExecutorFailure,
  type ExecutorSpec,
  FRAMEWORKS_NAMESPACE,
  type InverseOffer,
  leftSilent,
  MasterUrls,
  reconnectElsewhere,
  refusalOf,
  type Offer,
  type Operation,
  type OperationStatus,
  type PersistentVolumeSpec,
  type Reply,
  type ResourceEntry,
  type SchedulerMessage,
  socketClientOptions,
  type StatusUpdate,
  type Subscribe,
  type SubscribeReply,
  type TaskSpec,
} from '@arbiter/contracts';
import { io, type Socket } from 'socket.io-client';
import { firstSubscription } from './first-subscription';

export * from './executor';
export * from './executor-types';
export * from './scheduler-api';
import { LAUNCH_UNKNOWN, permanentConnectError, SchedulerError, type SchedulerEvents, type SchedulerOptions } from './scheduler-api';
export type {
  ContainerSpec,
  ExecutorFailure,
  ExecutorSpec,
  InverseOffer,
  Offer,
  Operation,
  OperationStatus,
  SchedulerMessage,
  StatusUpdate,
  Subscribe,
  TaskSpec,
  Volume,
  PersistentVolumeSpec,
} from '@arbiter/contracts';

/** The piece of a persistent volume in an offer, by its persistence id (what a task names in its resources to use it). */
export function volumeIn(offer: Pick<Offer, 'resources'>, id: string): ResourceEntry | undefined {
  return offer.resources.find((r) => r.name === 'disk' && r.volume === id);
}

/** Codes of a call whose answer never came: no answer in time, or the connection went first. */
const UNANSWERED = new Set(['TIMEOUT', 'CONNECTION_LOST']);

/** Wait before reconnecting after the server closed the session. */
const RECONNECT_AFTER_SERVER_CLOSE_MS = 500;

export class Scheduler extends EventEmitter<SchedulerEvents> {
  private readonly socket: Socket<FrameworkEvents, FrameworkCalls>;
  /** The control planes to reach (the leader among them). */
  private readonly masters: MasterUrls;
  /** Stopped by the application, or completed: no more reconnecting. */
  private closed = false;
  private subscribeInfo: Subscribe;
  private subscribed?: Promise<SubscribeReply>;
  /** Resolves at the next subscription (or the framework's end): what calls made while (re)connecting wait for. */
  private nextSubscription?: Promise<void>;
  frameworkId?: string;

  constructor(private readonly options: SchedulerOptions) {
    super();
    this.subscribeInfo = { ...options.framework };
    this.masters = new MasterUrls(options.master);
    this.socket = io(
      new URL(FRAMEWORKS_NAMESPACE, this.masters.current).toString(),
      socketClientOptions({
        token: options.token,
        connectTimeoutMs: options.connectTimeoutMs,
        // Node's `ca` replaces the built-in roots: keep them, and add the given ones.
        ...(options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {}),
      }),
    );
    this.socket.on('offers', (m: { offers: Offer[] }) => this.emit('offers', m.offers));
    this.socket.on('rescind', (m: { offerId: string; reason: string }) => this.emit('rescind', m.offerId, m.reason));
    this.socket.on('inverseOffers', (m: { inverseOffers: InverseOffer[] }) => this.emit('inverseOffers', m.inverseOffers));
    this.socket.on('heartbeat', (m: { at: string }) => this.emit('heartbeat', m.at));
    this.socket.on('rescindInverseOffer', (m: { inverseOfferId: string; reason: string }) =>
      this.emit('rescindInverseOffer', m.inverseOfferId, m.reason),
    );
    this.socket.on('agentLost', (m: { agentId: string; reason: string }) => this.emit('agentLost', m.agentId, m.reason));
    this.socket.on('message', (m: SchedulerMessage) => this.emit('message', m));
    this.socket.on('failure', (m: ExecutorFailure) => this.emit('failure', m));
    this.socket.on('update', (m: { status: StatusUpdate }) => {
      this.emit('update', m.status);
      // Automatic acknowledgements ask for no answer (nobody would read it): one message each
      // instead of two. One that is lost only means the update comes again.
      if (this.options.autoAcknowledge !== false)
        this.socket.emit('acknowledge', { taskId: m.status.taskId, updateUuid: m.status.updateUuid });
    });
    this.socket.on('operationStatus', (m: { status: OperationStatus }) => {
      this.emit('operationStatus', m.status);
      const { operationId, uuid, agentId } = m.status;
      if (this.options.autoAcknowledge !== false && uuid)
        this.socket.emit('acknowledgeOperationStatus', { operationId, uuid, ...(agentId ? { agentId } : {}) });
    });
    this.socket.on('disconnect', (reason) => {
      // A control plane that stopped answering (paused, cut off): reconnect to the next one.
      leftSilent(this.socket, FRAMEWORKS_NAMESPACE, this.masters, reason);
      this.emit('disconnected', reason);
      // The server closed the session (its control plane stopped leading, say): socket.io does
      // not reconnect by itself then. Come back, to the leader, unless the framework is done.
      if (reason === 'io server disconnect' && !this.closed)
        setTimeout(() => {
          if (!this.closed && !this.socket.connected) this.socket.connect();
        }, RECONNECT_AFTER_SERVER_CLOSE_MS);
    });
    this.socket.on('connect_error', (err: Error & { data?: { code?: string }; description?: unknown }) => {
      // Refused tokens and untrusted certificates do not heal by retrying.
      const code = permanentConnectError(err);
      // A standby (it names the leader), another refusal that retrying may heal, or no answer:
      // the leader, or the next URL.
      if (!code) reconnectElsewhere(this.socket, FRAMEWORKS_NAMESPACE, this.masters, refusalOf(err), () => !this.closed);
      else {
        this.closed = true;
        this.socket.disconnect();
        const cause = (err.description as { message?: string } | undefined)?.message;
        this.emit('error', new SchedulerError(code, `${err.message}${cause ? `: ${cause}` : ''}`));
      }
    });
    // Every (re)connection subscribes, with the framework id once there is one.
    this.socket.on('connect', () => {
      this.masters.connected();
      this.subscribed = this.call<SubscribeReply>('subscribe', {
        ...this.subscribeInfo,
        ...(this.frameworkId ? { frameworkId: this.frameworkId } : {}),
      }).then((reply) => {
        this.frameworkId = reply.frameworkId;
        this.emit('subscribed', reply);
        return reply;
      });
      this.subscribed.catch((err: unknown) => {
        // The framework is gone for good (torn down, or failed over past its timeout, say across
        // a control plane restart): an event the application can handle, not an 'error' that
        // would crash a process listening for none. It stops reconnecting.
        if (err instanceof SchedulerError && err.code === 'FRAMEWORK_COMPLETED') {
          this.closed = true;
          this.socket.disconnect();
          this.emit('completed', err);
          return;
        }
        this.emit('error', err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  /**
   * Connects and subscribes; resolves with the framework id. Until then the scheduler retries
   * (every control plane of its list, for as long as it takes), as a long-lived framework should;
   * with `timeoutMs`, it gives up after that long instead (a command-line tool, say), closed, with
   * a SchedulerError UNREACHABLE naming the control planes and the last error.
   */
  start(options: { timeoutMs?: number } = {}): Promise<SubscribeReply> {
    const { timeoutMs } = options;
    const subscribed = firstSubscription(this, this.socket, timeoutMs, (lastError) => {
      this.close();
      const where = this.masters.urls.join(', ');
      const seconds = (timeoutMs ?? 0) / 1000;
      return new SchedulerError(
        'UNREACHABLE',
        `no control plane answered within ${seconds} s: ${where}${lastError ? ` (${lastError})` : ''}`,
      );
    });
    this.socket.connect();
    return subscribed;
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /**
   * Accepts offers (all from one agent) with operations; unused resources return with a filter.
   * A launch whose answer never comes (the connection lost, the leader gone: the control plane
   * may have stored it) rejects with LAUNCH_UNKNOWN, never as failed: its tasks are reconciled
   * once subscribed again, and their state arrives as 'update' (LOST or UNKNOWN if never stored).
   */
  accept(offerIds: string[], operations: Operation[], options: { refuseSeconds?: number } = {}): Promise<AcceptReply> {
    const msg: Accept = { offerIds, operations, ...(options.refuseSeconds !== undefined ? { refuseSeconds: options.refuseSeconds } : {}) };
    const taskIds = operations.flatMap((op) => (op.type === 'LAUNCH' ? op.tasks.map((t) => t.taskId) : []));
    return this.call<AcceptReply>('accept', msg).catch((err: unknown) => {
      if (!taskIds.length || !(err instanceof SchedulerError) || !UNANSWERED.has(err.code)) throw err;
      // Waits for the next subscription (that is the call's own wait); a failure is the periodic resend's to make up.
      this.reconcile(taskIds).catch(() => undefined);
      throw new SchedulerError(
        LAUNCH_UNKNOWN,
        `the launch of ${taskIds.length} task(s) was not answered (${err.message}): it may have been stored; their state comes as 'update' once reconciled`,
        { taskIds },
      );
    });
  }

  /** Launches tasks on one offer (or several from the same agent). */
  launch(offers: Offer | Offer[], tasks: TaskSpec[], options: { refuseSeconds?: number } = {}): Promise<AcceptReply> {
    const ids = (Array.isArray(offers) ? offers : [offers]).map((o) => o.id);
    return this.accept(ids, [{ type: 'LAUNCH', tasks }], options);
  }

  /**
   * Creates persistent volumes (Mesos's CREATE) on disk reserved for the offer's role (a MOUNT
   * disk only whole): each comes back in later offers as `disk(role, volume=id)` (see volumeIn).
   * With `operationId`, how it ended comes as 'operationStatus' (as for any operation with an id).
   */
  createVolumes(offer: Offer, volumes: PersistentVolumeSpec[], options: { operationId?: string } = {}): Promise<AcceptReply> {
    const id = options.operationId !== undefined ? { id: options.operationId } : {};
    return this.accept([offer.id], [{ type: 'CREATE', ...id, volumes: volumes.map((v) => ({ ...v, mode: v.mode ?? 'RW' })) }]);
  }

  /** Destroys persistent volumes the offer holds (Mesos's DESTROY): their data is removed, their disk stays reserved. */
  destroyVolumes(offer: Offer, ids: string[], options: { operationId?: string } = {}): Promise<AcceptReply> {
    const id = options.operationId !== undefined ? { id: options.operationId } : {};
    return this.accept([offer.id], [{ type: 'DESTROY', ...id, volumes: ids.map((v) => ({ id: v })) }]);
  }

  /**
   * Changes the framework's info without subscribing again (Mesos's UPDATE_FRAMEWORK): roles,
   * capabilities, failover timeout, suppressed roles, offer filters, name, hostname, task size.
   * The whole info is given, as at subscription; its user and principal cannot change. Later
   * re-subscriptions (after a reconnection) use it.
   */
  async updateFramework(framework: Subscribe): Promise<void> {
    const frameworkId = this.frameworkId;
    if (frameworkId === undefined) throw new SchedulerError('NOT_SUBSCRIBED', 'start() the scheduler before updating its framework');
    await this.call('updateFramework', { ...framework, frameworkId });
    this.subscribeInfo = { ...framework };
  }

  decline(offerIds: string | string[], options: { refuseSeconds?: number } = {}): Promise<void> {
    return this.call('decline', {
      offerIds: Array.isArray(offerIds) ? offerIds : [offerIds],
      ...(options.refuseSeconds !== undefined ? { refuseSeconds: options.refuseSeconds } : {}),
    }).then(() => undefined);
  }

  suppress(roles?: string[]): Promise<void> {
    return this.call('suppress', roles ? { roles } : {}).then(() => undefined);
  }

  revive(roles?: string[]): Promise<void> {
    return this.call('revive', roles ? { roles } : {}).then(() => undefined);
  }

  kill(taskId: string, options: { gracePeriodSeconds?: number } = {}): Promise<void> {
    return this.call('kill', { taskId, ...options }).then(() => undefined);
  }

  acknowledge(status: StatusUpdate): Promise<void> {
    return this.call('acknowledge', { taskId: status.taskId, updateUuid: status.updateUuid }).then(() => undefined);
  }

  /** Acknowledges an operation status that carries a uuid (when autoAcknowledge is off). */
  acknowledgeOperationStatus(status: OperationStatus): Promise<void> {
    if (!status.uuid) return Promise.resolve();
    const { operationId, uuid, agentId } = status;
    return this.call('acknowledgeOperationStatus', { operationId, uuid, ...(agentId ? { agentId } : {}) }).then(() => undefined);
  }

  /** Asks for the latest status of the given operations, or of every one kept (implicit). Answers arrive as 'operationStatus'. */
  reconcileOperations(operations: Array<{ operationId: string; agentId?: string }> = []): Promise<void> {
    return this.call('reconcileOperations', { operations }).then(() => undefined);
  }

  /** Asks for the latest state of the given tasks, or of every live task (implicit). Answers arrive as 'update'. */
  reconcile(taskIds: string[] = []): Promise<void> {
    return this.call('reconcile', { tasks: taskIds.map((taskId) => ({ taskId })) }).then(() => undefined);
  }

  /** Launches a task group under one (DEFAULT) executor on one offer, or several from the same agent (Mesos's LAUNCH_GROUP). */
  launchGroup(
    offers: Offer | Offer[],
    executor: ExecutorSpec,
    tasks: TaskSpec[],
    options: { refuseSeconds?: number } = {},
  ): Promise<AcceptReply> {
    const ids = (Array.isArray(offers) ? offers : [offers]).map((o) => o.id);
    return this.accept(ids, [{ type: 'LAUNCH_GROUP', executor, tasks }], options);
  }

  /** Shuts one of its executors down on an agent (Mesos's SHUTDOWN); its tasks end with it. */
  shutdownExecutor(agentId: string, executorId: string): Promise<void> {
    return this.call('shutdownExecutor', { agentId, executorId }).then(() => undefined);
  }

  /** Sends one of its executors a message (Mesos's MESSAGE): `data` as bytes, or base64 already; at most 1 MiB. */
  message(agentId: string, executorId: string, data: Uint8Array | string): Promise<void> {
    const encoded = typeof data === 'string' ? data : Buffer.from(data).toString('base64');
    return this.call('message', { agentId, executorId, data: encoded }).then(() => undefined);
  }

  answerInverseOffer(inverseOfferId: string, accept: boolean): Promise<void> {
    return this.call('inverseOffer', { inverseOfferId, accept }).then(() => undefined);
  }

  /** Ends the framework: its tasks are killed and it cannot re-subscribe. */
  async teardown(): Promise<void> {
    await this.call('teardown', {});
    this.closed = true;
    this.socket.disconnect();
  }

  /** Disconnects without tearing down (the framework fails over). */
  close(): void {
    this.closed = true;
    this.socket.disconnect();
  }

  /**
   * Resolves once this connection's subscription is answered. A call made while the scheduler
   * reconnects (a failover, say) waits for it: sent before the subscription it would be
   * refused as NOT_SUBSCRIBED.
   */
  private subscribedNow(timeoutMs: number): Promise<void> {
    if (this.socket.connected && this.subscribed)
      return this.subscribed.then(
        () => undefined,
        () => undefined,
      );
    // One wait for the next subscription, however many calls are waiting on it.
    this.nextSubscription ??= new Promise<void>((resolve) => {
      const done = () => {
        this.off('subscribed', done);
        this.off('completed', done);
        this.nextSubscription = undefined;
        resolve();
      };
      this.once('subscribed', done);
      this.once('completed', done);
    });
    const next = this.nextSubscription;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new SchedulerError('TIMEOUT', 'not subscribed again within the call timeout')), timeoutMs);
      void next.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async call<T>(event: keyof FrameworkCalls, payload: unknown): Promise<T> {
    const timeoutMs = this.options.callTimeoutMs ?? 30_000;
    if (event !== 'subscribe') await this.subscribedNow(timeoutMs);
    return new Promise((resolve, reject) => {
      // A call in flight when the connection drops is never answered (the next connection is a
      // new session): it ends then, not at the timeout. The subscription has its own retries.
      let settled = false;
      const lost = () => {
        if (settled) return;
        settled = true;
        reject(new SchedulerError('CONNECTION_LOST', `the connection was lost before '${event}' was answered`));
      };
      if (event !== 'subscribe') this.socket.once('disconnect', lost);
      // One path for every call: the payload's type is each public method's to check.
      (this.socket as unknown as Socket)
        .timeout(timeoutMs)
        .emit(event, payload, (err: Error | null, reply: Reply<Record<string, unknown>>) => {
          this.socket.off('disconnect', lost);
          if (settled) return;
          settled = true;
          if (err) {
            reject(new SchedulerError('TIMEOUT', `no answer to '${event}' within the call timeout`));
            return;
          }
          if (!reply.ok) {
            reject(new SchedulerError(reply.error.code, reply.error.message, reply.error.details));
            return;
          }
          const { ok: _ok, ...rest } = reply;
          resolve(rest as T);
        });
    });
  }
}
