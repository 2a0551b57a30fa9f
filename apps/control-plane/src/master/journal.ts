import { SerialQueue } from './serial';

/**
 * Database writes that the master's serial queue does not wait for, in lanes: each lane writes
 * in order, the lanes side by side (on their own connections). A write goes in the lane of the
 * writes it must follow (an offer is closed after the cycle that made it was written); writes
 * that can only happen after another has committed (an answer to an offer already sent, a status
 * update of a task already launched) need no common lane. `settled` waits for every write
 * handed over so far, in every lane.
 */
export class Journal<Lane extends string> {
  private readonly lanes = new Map<Lane, SerialQueue>();

  run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    let q = this.lanes.get(lane);
    if (!q) this.lanes.set(lane, (q = new SerialQueue()));
    return q.run(work);
  }

  /** Resolves once every write handed over before the call has committed (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((q) => q.run(async () => undefined)));
  }

  /** Writes queued or running, in every lane. */
  get size(): number {
    let n = 0;
    for (const q of this.lanes.values()) n += q.size;
    return n;
  }
}
