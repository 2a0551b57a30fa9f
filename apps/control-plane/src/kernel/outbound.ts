/**
 * What the control plane has queued for each connection's reader (a socket.io connection, a
 * Mesos event stream) that the reader has not taken yet, bounded per connection and per
 * principal (`connectionQueueMb`, `principalQueueMb`). A connection whose queue passes its bound,
 * or that adds to a principal's queues past theirs, is cut off at once: what was queued for it
 * is dropped and a line says why. Senders of long answers send them in chunks and wait for the
 * queue to drain between them (`drained`); a queue that does not drain within
 * DRAIN_TIMEOUT_MS cuts its connection off too. No I/O here: each connection says how much it
 * holds and how it is cut.
 */
import { Logger } from '@nestjs/common';
import type { Clock, TimerHandle } from './clock';

/** A queue this small counts as drained (or a quarter of the bound, if less): the next chunk of an answer may go. */
export const LOW_WATER_BYTES = 256 * 1024;
/** A wait for a queue to drain that lasts this long ends its connection (its reader stopped). */
export const DRAIN_TIMEOUT_MS = 60_000;

/** Whose bound a connection counts against: its principal, or all anonymous callers as one. */
export const principalKey = (actor: { principalId: string | null; name: string; anonymous?: boolean }): string =>
  actor.anonymous ? '(anonymous)' : (actor.principalId ?? actor.name);

/** What the bounds need of a connection. */
export interface QueuedConnection {
  /** Bytes queued for its reader that the reader has not taken. */
  queuedBytes(): number;
  /** Ends the connection at once, dropping what is queued for it. */
  cut(reason: string): void;
}

/** One connection's queue, as its owner sees it. */
export class OutboundQueue {
  private released = false;
  private readonly waiters = new Set<(drained: boolean) => void>();
  /** The principal whose bound it counts against (null: none yet, such as before authentication). */
  principal: string | null = null;

  constructor(
    private readonly outbound: Outbound,
    readonly id: string,
    private readonly connection: QueuedConnection,
  ) {}

  get closed(): boolean {
    return this.released;
  }

  /** Bytes queued now (0 once the connection is gone). */
  bytes(): number {
    return this.released ? 0 : this.connection.queuedBytes();
  }

  /** Counts the queue against a principal's bound (the first principal it is claimed for). */
  claim(principal: string): void {
    if (this.principal === null && !this.released) this.outbound.claim(this, principal);
  }

  /** After something was queued: cuts the connection off when past a bound; false then. */
  check(): boolean {
    return this.outbound.check(this);
  }

  /** More waits than a drained queue holds: a sender of a long answer should wait (`drained`). */
  get backedUp(): boolean {
    return this.bytes() > this.outbound.lowWater;
  }

  /** Some of the queue went out: a wait for the drain may end. */
  progressed(): void {
    if (this.waiters.size && !this.backedUp) this.wake(true);
  }

  /**
   * Resolves true once the queue is no longer backed up, false if the connection ends
   * first. One that does not drain within DRAIN_TIMEOUT_MS is cut off (false).
   */
  drained(): Promise<boolean> {
    if (this.released) return Promise.resolve(false);
    if (!this.backedUp) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined = undefined;
      const done = (drained: boolean) => {
        timer?.cancel();
        this.waiters.delete(done);
        resolve(drained);
      };
      this.waiters.add(done);
      timer = this.outbound.clock.after(DRAIN_TIMEOUT_MS, () => {
        if (!this.waiters.has(done)) return;
        this.cut(`its reader took nothing for ${DRAIN_TIMEOUT_MS / 1000} s while an answer waited`);
      });
    });
  }

  /** Cuts the connection off (and forgets it). */
  cut(reason: string): void {
    if (this.released) return;
    const bytes = this.bytes();
    this.release();
    this.outbound.logCut(this, reason, bytes);
    this.connection.cut(reason);
  }

  /** The connection is gone: it holds nothing any more. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.outbound.forget(this);
    this.wake(false);
  }

  private wake(drained: boolean): void {
    for (const w of [...this.waiters]) w(drained);
  }
}

/** The bounds, in bytes (the configuration's connectionQueueMb and principalQueueMb). */
export interface OutboundLimits {
  perConnection: number;
  perPrincipal: number;
}

/** Built by the master's module from the configuration. */
export class Outbound {
  private readonly logger = new Logger('Outbound');
  private readonly queues = new Map<string, OutboundQueue>();
  private readonly byPrincipal = new Map<string, Set<OutboundQueue>>();
  readonly perConnection: number;
  readonly perPrincipal: number;
  /** A queue at most this large counts as drained. */
  readonly lowWater: number;

  constructor(
    limits: OutboundLimits,
    readonly clock: Clock,
  ) {
    this.perConnection = limits.perConnection;
    this.perPrincipal = limits.perPrincipal;
    this.lowWater = Math.min(LOW_WATER_BYTES, Math.floor(this.perConnection / 4));
  }

  /** Starts bounding a connection's queue; `release()` the queue when the connection ends. */
  register(id: string, connection: QueuedConnection): OutboundQueue {
    const queue = new OutboundQueue(this, id, connection);
    this.queues.set(id, queue);
    return queue;
  }

  /** The bytes queued for one connection, undefined once it is gone. */
  queued(id: string): number | undefined {
    return this.queues.get(id)?.bytes();
  }

  /** Bytes queued for every connection (metrics). */
  totalBytes(): number {
    let total = 0;
    for (const q of this.queues.values()) total += q.bytes();
    return total;
  }

  /** Connections with a queue (metrics). */
  get connections(): number {
    return this.queues.size;
  }

  claim(queue: OutboundQueue, principal: string): void {
    queue.principal = principal;
    let set = this.byPrincipal.get(principal);
    if (!set) this.byPrincipal.set(principal, (set = new Set()));
    set.add(queue);
  }

  check(queue: OutboundQueue): boolean {
    if (queue.closed) return false;
    const bytes = queue.bytes();
    if (bytes > this.perConnection) {
      queue.cut(`its reader is too slow: ${bytes} bytes wait for it, more than the ${this.perConnection} one connection may hold`);
      return false;
    }
    // Only a queue that holds something can take its principal's over the bound.
    if (bytes <= this.lowWater || queue.principal === null) return true;
    let total = 0;
    for (const q of this.byPrincipal.get(queue.principal) ?? []) total += q.bytes();
    if (total > this.perPrincipal) {
      queue.cut(
        `the readers of principal '${queue.principal}' are too slow: ${total} bytes wait for its connections, more than the ${this.perPrincipal} one principal may hold`,
      );
      return false;
    }
    return true;
  }

  forget(queue: OutboundQueue): void {
    if (this.queues.get(queue.id) === queue) this.queues.delete(queue.id);
    if (queue.principal === null) return;
    const set = this.byPrincipal.get(queue.principal);
    set?.delete(queue);
    if (set && !set.size) this.byPrincipal.delete(queue.principal);
  }

  logCut(queue: OutboundQueue, reason: string, bytes: number): void {
    this.logger.warn({ connection: queue.id, principal: queue.principal, queuedBytes: bytes }, `connection cut off: ${reason}`);
  }
}
