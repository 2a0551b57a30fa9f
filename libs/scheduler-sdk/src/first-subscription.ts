/** How a starting scheduler waits for its first subscription (Scheduler.start). */
import type { EventEmitter } from 'node:events';
import type { SubscribeReply } from '@arbiter/contracts';
import type { SchedulerEvents } from './scheduler-api';

/** The connection's errors, as socket.io's client reports them. */
interface ConnectErrors {
  on(event: 'connect_error', listener: (err: Error & { description?: unknown }) => void): unknown;
  off(event: 'connect_error', listener: (err: Error & { description?: unknown }) => void): unknown;
}

/**
 * Resolves with the scheduler's first subscription; rejects with the error or the completion that
 * comes first, or, given `timeoutMs`, with what `giveUp` makes of the connection's last error
 * (`connect ECONNREFUSED ...`, say) once that long has passed without a subscription.
 */
export function firstSubscription(
  scheduler: EventEmitter<SchedulerEvents>,
  connection: ConnectErrors,
  timeoutMs: number | undefined,
  giveUp: (lastError: string | undefined) => Error,
): Promise<SubscribeReply> {
  return new Promise((resolve, reject) => {
    let lastError: string | undefined;
    const onConnectError = (err: Error & { description?: unknown }) => {
      const cause = (err.description as { message?: string } | undefined)?.message;
      lastError = cause ? `${err.message}: ${cause}` : err.message;
    };
    const done = () => {
      clearTimeout(timer);
      connection.off('connect_error', onConnectError);
      scheduler.off('subscribed', onSubscribed);
      scheduler.off('error', onError);
      scheduler.off('completed', onError);
    };
    const onSubscribed = (reply: SubscribeReply) => {
      done();
      resolve(reply);
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            done();
            reject(giveUp(lastError));
          }, timeoutMs);
    connection.on('connect_error', onConnectError);
    scheduler.once('subscribed', onSubscribed);
    scheduler.once('error', onError);
    scheduler.once('completed', onError);
  });
}
