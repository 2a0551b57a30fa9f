/**
 * Runs async work one piece at a time, in arrival order. The master's state changes (a cycle,
 * an accept, an agent registering) go through one queue, as through Mesos's master actor, so
 * the allocator and the database never see two of them interleaved.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(work, work);
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--,
    );
    return result;
  }

  /** Pieces of work queued or running. */
  get size(): number {
    return this.pending;
  }
}
