/**
 * Group commit: calls that arrive while a batch is being written wait together and go out in
 * the next batch, so one flush (one transaction, a few statements) serves many callers. The
 * flush settles each entry with its own outcome; if the flush itself fails, every entry it
 * left unsettled fails with that error.
 */
export interface Pending<I, R> {
  readonly item: I;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export class GroupCommit<I, R> {
  private pending: Array<Pending<I, R>> = [];

  /**
   * @param schedule runs a flush when it is its turn (e.g. in the kernel.s serial order)
   * @param flush writes a batch and settles its entries (only after the write has committed)
   */
  constructor(
    private readonly schedule: (flush: () => Promise<void>) => Promise<void>,
    private readonly flush: (batch: Array<Pending<I, R>>) => Promise<void>,
  ) {}

  push(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      // The first entry of a batch books its flush; later ones ride along until it starts.
      if (this.pending.length === 1) void this.schedule(() => this.run()).catch(() => undefined);
    });
  }

  /** Entries waiting for their flush. */
  get size(): number {
    return this.pending.length;
  }

  private async run(): Promise<void> {
    const batch = this.pending.splice(0);
    if (!batch.length) return;
    try {
      await this.flush(batch);
    } catch (err) {
      // Settling twice is a no-op: entries the flush already answered keep their outcome.
      for (const b of batch) b.reject(err);
    }
  }
}
