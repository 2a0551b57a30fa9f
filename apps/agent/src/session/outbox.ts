/**
 * Calls to the control plane besides status updates (an executor's exit, an executor's message):
 * sent while the session is registered, each on its own (one that gets no answer holds up no
 * other, nor the status updates), and a reliable one sent again with a doubling delay until the
 * control plane acknowledges it. An unreliable one (framework messages, as in Mesos) is tried
 * once the session is registered, and dropped if that fails.
 */
import type { AgentExecutorCalls, Reply } from '@arbiter/contracts';
import type { Logger } from 'pino';

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface CallChannel {
  ready(): boolean;
  call(event: keyof AgentExecutorCalls, payload: unknown): Promise<Reply>;
}

interface Outgoing {
  event: keyof AgentExecutorCalls;
  payload: unknown;
  reliable: boolean;
  retryMs: number;
  sending: boolean;
  timer?: NodeJS.Timeout;
}

export class Outbox {
  private readonly queue = new Set<Outgoing>();
  private stopped = false;

  constructor(
    private readonly channel: CallChannel,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.queue.size;
  }

  send(event: keyof AgentExecutorCalls, payload: unknown, reliable = true): void {
    if (this.stopped) return;
    const item: Outgoing = { event, payload, reliable, retryMs: RETRY_MIN_MS, sending: false };
    this.queue.add(item);
    this.attempt(item);
  }

  /** Registered (again): everything waiting goes now. */
  flush(): void {
    for (const item of this.queue) if (!item.timer) this.attempt(item);
  }

  stop(): void {
    this.stopped = true;
    for (const item of this.queue) clearTimeout(item.timer);
  }

  private attempt(item: Outgoing): void {
    if (this.stopped || item.sending || !this.channel.ready()) return;
    item.sending = true;
    void this.channel
      .call(item.event, item.payload)
      .then(
        (r) => r,
        (err: unknown) => ({ ok: false as const, error: { code: 'NO_ANSWER', message: (err as Error).message } }),
      )
      .then((reply) => {
        item.sending = false;
        if (reply.ok || !item.reliable || reply.error.code === 'INVALID_MESSAGE') {
          if (!reply.ok) this.log.warn({ event: item.event, error: reply.error }, 'the control plane did not take the call');
          this.queue.delete(item);
          return;
        }
        item.timer = setTimeout(() => {
          item.timer = undefined;
          this.attempt(item);
        }, item.retryMs);
        item.timer.unref();
        item.retryMs = Math.min(item.retryMs * 2, RETRY_MAX_MS);
      });
  }
}
