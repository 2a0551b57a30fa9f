/** Runs async work one piece at a time, in arrival order (the building block of the kernel's serial order and write lanes). */
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
