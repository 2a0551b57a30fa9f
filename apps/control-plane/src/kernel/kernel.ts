/**
 * The master's kernel: the one order in which its state changes, and the database writes that
 * order does not wait for.
 *
 * - `serial(work)`: the serial order. State changes (a cycle, an accept, an agent registering)
 *   run one at a time, in arrival order, as in Mesos's master actor, so the allocator, the
 *   outstanding offers and the database never see two of them interleaved.
 * - `write(lane, work)`: the write lanes. Writes the serial order need not wait for (a cycle's
 *   offers, answers to offers, status updates) run in a lane: each lane in order, the lanes
 *   side by side (on their own connections). A write goes in the lane of the writes it must
 *   follow; whoever a write concerns is told once it has committed.
 * - `exclusive(work)`: a turn in the serial order that starts once every write handed to a lane
 *   so far has settled, for work that reads what such writes change.
 * - `batch(turn, flush)`: group commit. Calls that arrive while a batch is being written wait
 *   together and go out in the next batch, so one statement serves many callers.
 * - `afterCommit(write, committed, failed)`: after this commit, continue (without a turn) with
 *   what commutes with the serial order; dropped once the term that wrote is over.
 * - `perTerm(create)`: state that lives for one leadership term. Whatever a term booked (a
 *   cycle, a batch waiting for its flush) is dropped with it, so nothing the last term left
 *   half done holds up the next.
 */
import { Injectable } from '@nestjs/common';
import { isDataError } from '../database/database.service';
import { GroupCommit, type Pending } from './group-commit';
import { runIn } from './order';
import { SerialQueue } from './serial-queue';

/**
 * `launches`: accepts (offers closed, tasks inserted); `statuses`: status updates of launched
 * tasks; `background`: what nobody waits for (a cycle's offers, offers rescinded or declined,
 * acknowledgements). An answer only ever closes an offer that was sent, so written, and a
 * status update is only ever of a task launched, so written: neither needs a common lane with
 * what it follows.
 */
export type WriteLane = 'launches' | 'statuses' | 'background';

/** Where a batch's flush runs: in the serial order, exclusively, or in a write lane. */
export type BatchTurn = 'serial' | 'exclusive' | WriteLane;

/** A group commit of the current term (see Kernel.batch). */
export interface Batch<I, R> {
  /** Adds a call to the next batch; resolves with its own outcome once its batch is flushed. */
  push(item: I): Promise<R>;
  /** Calls waiting for their flush. */
  readonly size: number;
}

@Injectable()
export class Kernel {
  private queue = new SerialQueue();
  private lanes = new Map<WriteLane, SerialQueue>();
  private stopped = false;
  /** Set when a term is abandoned (stepped down), until the next begins. */
  private abandoned = false;
  private generation = 0;
  /** The group commits whose flushes run in a write lane (see waitingForLanes). */
  private readonly laneBatches: Array<{ readonly size: number }> = [];

  /** Runs `work` in the serial order. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(() => runIn('turn', work));
  }

  /** Runs `work` in the serial order once every write handed to a lane before it has settled. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(() =>
      runIn('turn', async () => {
        await this.settled();
        return work();
      }),
    );
  }

  /**
   * After this commit, continue: `committed` runs with the write's value as soon as it has
   * committed, `failed` with its error if it failed, without waiting for a turn. What runs there
   * must commute with the serial order (docs/ARCHITECTURE.md, "The ordering rule"): what the
   * write made true, and resources given back. Neither runs once the term that wrote is over
   * (stepped down, or a later term begun): the next term's state is rebuilt from what committed.
   */
  afterCommit<T>(write: Promise<T>, committed: (value: T) => void, failed: (err: unknown) => void = () => undefined): void {
    const term = this.generation;
    const current = () => this.generation === term && !this.abandoned;
    write.then(
      (value) => {
        if (current()) runIn('commit', () => committed(value));
      },
      (err: unknown) => {
        if (current()) runIn('commit', () => failed(err));
      },
    );
  }

  /** Runs a write in its lane, after the lane's earlier writes. */
  write<T>(lane: WriteLane, work: () => Promise<T>): Promise<T> {
    let q = this.lanes.get(lane);
    if (!q) this.lanes.set(lane, (q = new SerialQueue()));
    return q.run(() => runIn('commit', work));
  }

  /** Resolves once every write handed to a lane before the call has committed (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((q) => q.run(() => Promise.resolve())));
  }

  /**
   * A group commit whose flushes run in `turn`; see GroupCommit. With `isolate`, a flush that
   * fails on the data (a value PostgreSQL refuses, a constraint) is tried again entry by entry,
   * so one bad entry does not fail the others; the flush must change nothing before its write.
   */
  batch<I, R>(turn: BatchTurn, flush: (batch: Array<Pending<I, R>>) => Promise<void>, options: { isolate?: boolean } = {}): Batch<I, R> {
    const schedule = (run: () => Promise<void>): Promise<void> =>
      turn === 'serial' ? this.serial(run) : turn === 'exclusive' ? this.exclusive(run) : this.write(turn, run);
    // One group commit per term: a batch booked in a term that ended (its flush waiting in that
    // term's queue, which may never run) must not hold up the next term's calls.
    const current = this.perTerm(() => new GroupCommit(schedule, flush, options.isolate ? isDataError : undefined));
    const batch: Batch<I, R> = {
      push: (item) => current().push(item),
      get size() {
        return current().size;
      },
    };
    if (turn !== 'serial' && turn !== 'exclusive') this.laneBatches.push(batch);
    return batch;
  }

  /**
   * State of one term: `create` runs at the first use in each term and its object is dropped
   * when the term ends (the next use in a later term creates another), so per-term state
   * cannot leak from one term into the next however the last one ended.
   */
  perTerm<T>(create: () => T): () => T {
    let made: { term: number; value: T } | undefined;
    return () => {
      if (made?.term !== this.generation) made = { term: this.generation, value: create() };
      return made.value;
    };
  }

  /** Writes queued or running, in every lane. */
  get pendingWrites(): number {
    let n = 0;
    for (const q of this.lanes.values()) n += q.size;
    return n;
  }

  /** Calls waiting in group commits for a flush in a write lane (those that will go out together). */
  get waitingForLanes(): number {
    return this.laneBatches.reduce((n, b) => n + b.size, 0);
  }

  /** Work queued or running in the serial order. */
  get pendingWork(): number {
    return this.queue.size;
  }

  /** Counts the starts afresh (leadership terms): work booked in one term is not carried into the next. */
  get term(): number {
    return this.generation;
  }

  /** Set once the control plane is shutting down: timers stop starting new work. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** Whether the term `term` (a `term` read earlier) is over: a later one has begun, or the control plane is stopping. */
  ended(term: number): boolean {
    return this.stopped || this.generation !== term;
  }

  /**
   * Starts afresh (a new leadership term): new queues, so work the last term left waiting on
   * a lost database connection holds nothing up.
   */
  restart(): void {
    this.generation++;
    this.queue = new SerialQueue();
    this.lanes = new Map();
    this.stopped = false;
    this.abandoned = false;
  }

  /** Stops at once, without waiting for the work in flight (a leader that lost its term). */
  abandon(): void {
    this.stopped = true;
    this.abandoned = true;
  }

  /** Stops new periodic work and resolves once the work in flight (and its writes) is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.exclusive(() => Promise.resolve());
  }
}

export type { Pending } from './group-commit';
