/**
 * The executor side of the SDK: a framework's executor in TypeScript, speaking the agent's
 * executor API (Mesos's v1 executor HTTP API, JSON encoding). Started by the agent, it finds
 * everything it needs in its environment (MESOS_AGENT_ENDPOINT, MESOS_FRAMEWORK_ID,
 * MESOS_EXECUTOR_ID, MESOS_EXECUTOR_AUTHENTICATION_TOKEN, ...).
 *
 *   const executor = new Executor();
 *   executor.on('launch', async (task) => {
 *     await executor.update(task.task_id.value, 'TASK_RUNNING');
 *     ...
 *     await executor.update(task.task_id.value, 'TASK_FINISHED');
 *   });
 *   executor.on('kill', (taskId) => ...);
 *   executor.on('shutdown', () => process.exit(0));
 *   await executor.start();
 *
 * Updates are kept until the agent acknowledges them and sent again, with the tasks not yet
 * acknowledged, when the executor subscribes again after losing the agent (an agent restart):
 * it retries with a backoff up to MESOS_SUBSCRIPTION_BACKOFF_MAX, and gives up (the 'shutdown'
 * event) after MESOS_RECOVERY_TIMEOUT, or at once when the framework did not ask for
 * checkpointing (MESOS_CHECKPOINT is not 1), as Mesos's executor library does.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Label } from '@arbiter/contracts';
import type { ExecutorTaskInfo, ExecutorTaskState, MesosId, Subscribed } from './executor-types';
import { type Status, UnacknowledgedUpdates } from './executor-updates';

/** How often an update lost on the way is sent again while subscribed, and the first pause (doubled each time). */
const UPDATE_RESENDS = 5;
const UPDATE_RESEND_MS = 50;

export interface ExecutorOptions {
  /** The environment to read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

interface ExecutorEvents {
  subscribed: [Subscribed];
  launch: [ExecutorTaskInfo];
  launchGroup: [ExecutorTaskInfo[]];
  kill: [taskId: string, gracePeriodSeconds: number | undefined];
  message: [data: Buffer];
  acknowledged: [taskId: string, uuid: string];
  shutdown: [];
  error: [Error];
  disconnected: [];
}

const TERMINAL = new Set<ExecutorTaskState>([
  'TASK_FINISHED',
  'TASK_FAILED',
  'TASK_KILLED',
  'TASK_ERROR',
  'TASK_LOST',
  'TASK_DROPPED',
  'TASK_GONE',
]);

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: an executor is started by an Arbiter (or Mesos) agent, which sets it`);
  return value;
}

/** Seconds from Mesos's duration text ("5secs", "15mins", "1hrs", "100ms", "2days"); undefined if absent. */
export function durationSeconds(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^\s*([\d.]+)\s*(ns|us|ms|secs|mins|hrs|days|weeks)?\s*$/.exec(text);
  if (!m) return undefined;
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, ms: 1e-3, secs: 1, mins: 60, hrs: 3600, days: 86_400, weeks: 604_800 };
  const unit = m[2] ? units[m[2]] : 1;
  return Number(m[1]) * unit;
}

export class Executor extends EventEmitter<ExecutorEvents> {
  readonly frameworkId: string;
  readonly executorId: string;
  private readonly endpoint: URL;
  private readonly token?: string;
  private readonly checkpoint: boolean;
  private readonly recoveryTimeoutMs: number;
  private readonly backoffMaxMs: number;
  /** Updates not yet acknowledged by the agent. */
  private readonly updates = new UnacknowledgedUpdates();
  /** The last update's sending: the next one goes once it is done. */
  private sending: Promise<void> = Promise.resolve();
  /** Tasks none of whose updates the agent has acknowledged yet, by task id. */
  private readonly tasks = new Map<string, ExecutorTaskInfo>();
  private stream?: http.ClientRequest;
  private stopped = false;
  private connected = false;
  private disconnectedAt?: number;
  private retry?: NodeJS.Timeout;

  constructor(options: ExecutorOptions = {}) {
    super();
    const env = options.env ?? process.env;
    this.endpoint = new URL('/api/v1/executor', `http://${required(env, 'MESOS_AGENT_ENDPOINT')}`.replace(/^http:\/\/(https?:\/\/)/, '$1'));
    this.frameworkId = required(env, 'MESOS_FRAMEWORK_ID');
    this.executorId = required(env, 'MESOS_EXECUTOR_ID');
    this.token = env.MESOS_EXECUTOR_AUTHENTICATION_TOKEN || undefined;
    this.checkpoint = env.MESOS_CHECKPOINT === '1';
    this.recoveryTimeoutMs = (durationSeconds(env.MESOS_RECOVERY_TIMEOUT) ?? 15 * 60) * 1000;
    this.backoffMaxMs = (durationSeconds(env.MESOS_SUBSCRIPTION_BACKOFF_MAX) ?? 2) * 1000;
  }

  /** Subscribes; resolves with the SUBSCRIBED event (rejects if the agent refuses the first subscription). */
  start(): Promise<Subscribed> {
    return new Promise((resolve, reject) => {
      this.once('subscribed', resolve);
      this.subscribe(reject);
    });
  }

  /**
   * Reports a task's state (Mesos's UPDATE). Resolves once the agent took it (202); the update
   * is kept, and sent again after a reconnection, until the agent acknowledges it. Updates go to
   * the agent one at a time, in the order they were made (as Mesos's library sends its calls on
   * one connection): a task's KILLING never arrives after its KILLED.
   */
  update(
    taskId: string,
    state: ExecutorTaskState,
    extra: { message?: string; reason?: string; data?: Buffer; healthy?: boolean; labels?: Label[] } = {},
  ): Promise<void> {
    const uuid = Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64');
    const status: Status = {
      task_id: { value: taskId },
      state,
      source: 'SOURCE_EXECUTOR',
      executor_id: { value: this.executorId },
      uuid,
      timestamp: Date.now() / 1000,
      ...(extra.message !== undefined ? { message: extra.message } : {}),
      ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
      ...(extra.data !== undefined ? { data: extra.data.toString('base64') } : {}),
      ...(extra.healthy !== undefined ? { healthy: extra.healthy } : {}),
      ...(extra.labels?.length ? { labels: { labels: extra.labels } } : {}),
    };
    this.updates.add(uuid, status);
    return this.enqueue(uuid, status);
  }

  /** Sends an update after those before it. */
  private enqueue(uuid: string, status: Status): Promise<void> {
    const sent = this.sending.then(() => this.send(uuid, status));
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  /**
   * Sends one update. Lost on the way while the subscription stays open (a connection reset, say):
   * sent again after a pause, a few times; once the subscription is lost, the next one sends it
   * (with every update not acknowledged). A refusal is the caller's.
   */
  private async send(uuid: string, status: Status): Promise<void> {
    for (let attempt = 0; this.connected && this.updates.pending(uuid); attempt++) {
      try {
        await this.call({ type: 'UPDATE', update: { status } });
        this.updates.taken(uuid);
        return;
      } catch (err) {
        if ((err as { status?: number }).status !== undefined) {
          // Refused: sending it again changes nothing, so it counts as answered.
          this.updates.taken(uuid);
          throw err;
        }
        if (attempt >= UPDATE_RESENDS) return;
        await new Promise((resolve) => setTimeout(resolve, UPDATE_RESEND_MS * 2 ** attempt));
      }
    }
  }

  /**
   * Resolves once the agent has every update made so far (it answered their UPDATE, or held them
   * in a subscription it accepted), waiting across reconnections, or once the executor has stopped.
   * An executor that ends after it loses no update: its agent would end a task whose last update
   * it never got as the executor's failure.
   */
  delivered(): Promise<void> {
    return this.updates.delivered();
  }

  /** Whether its subscription is open now (false while the agent is away: updates wait for the next one). */
  get isSubscribed(): boolean {
    return this.connected;
  }

  /** Sends bytes to the framework's scheduler (Mesos's MESSAGE; delivery is not guaranteed). */
  async message(data: Buffer): Promise<void> {
    await this.call({ type: 'MESSAGE', message: { data: data.toString('base64') } });
  }

  /** Whether a state ends its task. */
  static terminal(state: ExecutorTaskState): boolean {
    return TERMINAL.has(state);
  }

  /** Closes the subscription and stops reconnecting. */
  close(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.stream?.destroy();
    this.updates.stop();
  }

  private request(body: object, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
    const payload = JSON.stringify({ executor_id: { value: this.executorId }, framework_id: { value: this.frameworkId }, ...body });
    const get = this.endpoint.protocol === 'https:' ? https.request : http.request;
    const req = get(
      this.endpoint,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        },
      },
      onResponse,
    );
    req.end(payload);
    return req;
  }

  /** A call other than SUBSCRIBE: resolves on 202, rejects with the agent's answer otherwise. */
  private call(body: object): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = this.request(body, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          res.statusCode === 202
            ? resolve()
            : reject(
                Object.assign(new Error(`the agent answered ${res.statusCode}: ${text.trim() || res.statusMessage}`), {
                  status: res.statusCode,
                }),
              ),
        );
      });
      req.on('error', reject);
    });
  }

  private subscribe(firstFailure?: (err: Error) => void): void {
    if (this.stopped) return;
    const held = this.updates.kept();
    const subscribe = {
      unacknowledged_tasks: [...this.tasks.values()],
      unacknowledged_updates: held.map(([, status]) => ({ framework_id: { value: this.frameworkId }, status })),
    };
    const req = this.request({ type: 'SUBSCRIBE', subscribe }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const err = new Error(`the agent refused the subscription (${res.statusCode}): ${text.trim() || res.statusMessage}`);
          if (firstFailure) firstFailure(err);
          else this.lost(err);
        });
        return;
      }
      this.connected = true;
      this.disconnectedAt = undefined;
      // The agent took the updates the subscription held; those made while it was on its way
      // (not in it, and not sent: there was no subscription) go now, in the order made.
      for (const [uuid] of held) this.updates.taken(uuid);
      for (const [uuid, status] of this.updates.untaken()) void this.enqueue(uuid, status).catch(() => undefined);
      let buffer = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
          const newline = buffer.indexOf(0x0a);
          if (newline < 0) break;
          const length = Number(buffer.subarray(0, newline).toString('ascii'));
          if (!Number.isSafeInteger(length) || length <= 0) {
            res.destroy(new Error('malformed RecordIO from the agent'));
            return;
          }
          if (buffer.length < newline + 1 + length) break;
          const record = buffer.subarray(newline + 1, newline + 1 + length).toString('utf8');
          buffer = buffer.subarray(newline + 1 + length);
          this.event(JSON.parse(record) as { type: string } & Record<string, unknown>);
        }
      });
      res.on('close', () => this.lost(new Error('the agent closed the subscription')));
    });
    req.on('error', (err) => (firstFailure && !this.connected ? firstFailure(err) : this.lost(err)));
    this.stream = req;
  }

  private event(e: { type: string } & Record<string, unknown>): void {
    switch (e.type) {
      case 'SUBSCRIBED': {
        // What the agent got before the disconnection is sent again with the subscription.
        this.emit('subscribed', e.subscribed as Subscribed);
        return;
      }
      case 'LAUNCH': {
        const task = (e.launch as { task: ExecutorTaskInfo }).task;
        this.tasks.set(task.task_id.value, task);
        this.emit('launch', task);
        return;
      }
      case 'LAUNCH_GROUP': {
        const tasks = (e.launch_group as { task_group: { tasks: ExecutorTaskInfo[] } }).task_group.tasks;
        for (const t of tasks) this.tasks.set(t.task_id.value, t);
        this.emit('launchGroup', tasks);
        return;
      }
      case 'KILL': {
        const kill = e.kill as { task_id: MesosId; kill_policy?: { grace_period?: { nanoseconds: number | string } } };
        const nanos = kill.kill_policy?.grace_period?.nanoseconds;
        this.emit('kill', kill.task_id.value, nanos === undefined ? undefined : Number(nanos) / 1e9);
        return;
      }
      case 'ACKNOWLEDGED': {
        const ack = e.acknowledged as { task_id: MesosId; uuid: string };
        this.updates.acknowledged(ack.uuid);
        this.tasks.delete(ack.task_id.value);
        this.emit('acknowledged', ack.task_id.value, ack.uuid);
        return;
      }
      case 'MESSAGE':
        this.emit('message', Buffer.from((e.message as { data: string }).data, 'base64'));
        return;
      case 'SHUTDOWN':
        this.close();
        this.emit('shutdown');
        return;
      case 'ERROR':
        this.emit('error', new Error((e.error as { message: string }).message));
        return;
      default:
        // HEARTBEAT and events this version does not know.
        return;
    }
  }

  /** The subscription ended: subscribe again with a backoff, or give up as Mesos's library does. */
  private lost(err: Error): void {
    if (this.stopped || this.retry) return;
    const wasConnected = this.connected;
    this.connected = false;
    this.stream?.destroy();
    if (wasConnected) this.emit('disconnected');
    this.disconnectedAt ??= Date.now();
    if (!this.checkpoint || Date.now() - this.disconnectedAt > this.recoveryTimeoutMs) {
      this.close();
      if (this.listenerCount('error')) this.emit('error', err);
      this.emit('shutdown');
      return;
    }
    const delay = Math.min(this.backoffMaxMs, 100 + Math.random() * this.backoffMaxMs);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.subscribe();
    }, delay);
  }
}
