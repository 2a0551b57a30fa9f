/**
 * The status update stream (Mesos's task status update manager): every update is journaled
 * before it is sent, sent in order per task (the next once the previous is acknowledged;
 * different tasks' side by side), and sent again until the control plane acknowledges it. An
 * update the journal cannot take (its disk full, say) is kept in memory and sent all the same:
 * it is lost only if the agent stops before it is acknowledged.
 */
import { randomUUID } from 'node:crypto';
import type { Reply, StatusUpdate } from '@arbiter/contracts';
import type { Logger } from 'pino';
import type { TaskEvent } from '../executors/task-runner';
import { UpdateJournal } from './journal';

/** First and longest delay before an unacknowledged status update is sent again. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

interface Pending {
  /** Its journal file; none when the journal could not take it. */
  file?: string;
  update: StatusUpdate;
}

export interface UpdateChannel {
  /** Whether updates can be sent now (registered, not stopped). */
  ready(): boolean;
  /** The agent's id, once it has one. */
  readonly id: string | undefined;
  /** Sends one update; resolves with the control plane's answer, rejects when none came. */
  send(update: StatusUpdate): Promise<Reply>;
}

export class StatusUpdates {
  /** Tasks with an update on its way. */
  private readonly sending = new Set<string>();
  /** A retry of updates the control plane refused or did not answer, and its next delay. */
  private retryTimer?: NodeJS.Timeout;
  private retryMs = RETRY_MIN_MS;
  private stopped = false;
  /** Updates the journal could not take, oldest first. */
  private readonly unjournaled: StatusUpdate[] = [];
  /** Why the journal's last write failed, until one succeeds. */
  private failure?: Error;
  /** Told of every update the control plane acknowledged (an executor's, say, is acknowledged to it). */
  onAcknowledged?: (update: StatusUpdate) => void;

  constructor(
    private readonly journal: UpdateJournal,
    private readonly channel: UpdateChannel,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.journal.size + this.unjournaled.length;
  }

  /** Why updates cannot be journaled now, if they cannot (after a failed write, the journal is tried again). */
  get journalFailure(): Error | undefined {
    if (this.failure) this.failure = this.journal.probe();
    return this.failure;
  }

  /** The updates not acknowledged yet, oldest first. */
  unacknowledgedUpdates(): StatusUpdate[] {
    return this.pending().map((p) => p.update);
  }

  /** `frameworkId/taskId` of the tasks with an update not acknowledged yet. */
  unacknowledged(): Set<string> {
    return new Set(this.pending().map((p) => `${p.update.frameworkId}/${p.update.taskId}`));
  }

  /** The last state of each task with an update not acknowledged yet, by `frameworkId/taskId`. */
  lastStates(): Map<string, StatusUpdate['state']> {
    return new Map(this.pending().map((p) => [`${p.update.frameworkId}/${p.update.taskId}`, p.update.state]));
  }

  /** The tasks whose last unacknowledged update is DROPPED (refused at launch; no executor knows them). */
  dropped(): Array<{ frameworkId: string; taskId: string }> {
    const last = new Map(this.pending().map((p) => [`${p.update.frameworkId}/${p.update.taskId}`, p.update]));
    return [...last.values()].filter((u) => u.state === 'DROPPED').map((u) => ({ frameworkId: u.frameworkId, taskId: u.taskId }));
  }

  private pending(): Pending[] {
    return [...this.journal.pending(), ...this.unjournaled.map((update) => ({ update }))];
  }

  /** A task changed state: journal it, then send it. False: the journal could not take it (it is sent all the same). */
  record(e: TaskEvent): boolean {
    const update: StatusUpdate = {
      updateUuid: e.updateUuid ?? randomUUID(),
      frameworkId: e.frameworkId,
      taskId: e.taskId,
      agentId: this.channel.id ?? 'unregistered',
      state: e.state,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.message ? { message: e.message } : {}),
      timestamp: new Date().toISOString(),
      source: e.fromExecutor ? 'SOURCE_EXECUTOR' : 'SOURCE_AGENT',
      ...(e.healthy !== undefined ? { healthy: e.healthy } : {}),
      ...(e.checkStatus ? { checkStatus: e.checkStatus } : {}),
      ...e.fromExecutor,
      ...(e.container ? { container: e.container } : {}),
    };
    let durable = true;
    try {
      this.journal.append(update);
      this.failure = undefined;
    } catch (err) {
      durable = false;
      if (!this.failure) this.log.error({ err: (err as Error).message }, 'cannot journal status updates; keeping them in memory');
      this.failure = err as Error;
      this.unjournaled.push(update);
    }
    this.log.info({ taskId: e.taskId, state: e.state, reason: e.reason }, 'task state');
    this.flush();
    return durable;
  }

  /** Sends what is journaled while the channel is ready: each task's oldest update first. */
  flush(): void {
    if (!this.channel.ready() || this.stopped) return;
    const oldest = new Set<string>();
    for (const next of this.pending()) {
      const task = `${next.update.frameworkId}\u0000${next.update.taskId}`;
      if (oldest.has(task)) continue;
      oldest.add(task);
      if (this.sending.has(task)) continue;
      this.sending.add(task);
      void this.send(task, next);
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

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

  private async send(task: string, next: Pending): Promise<void> {
    let sent = false;
    try {
      const agentId = this.channel.id;
      if (agentId === undefined) return;
      const reply = await this.channel.send({ ...next.update, agentId });
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
    if (next.file) this.journal.remove(next.file);
    else if (this.unjournaled.includes(next.update)) this.unjournaled.splice(this.unjournaled.indexOf(next.update), 1);
    this.onAcknowledged?.(next.update);
    this.flush();
  }
}
