/**
 * Group commit: calls that arrive while a batch is being written wait together and go out in
 * the next batch, so one flush (one transaction, a few statements) serves many callers. The
 * flush settles each entry with its own outcome; if the flush itself fails, every entry it
 * left unsettled fails with that error, unless the failure is one an entry of the batch may
 * have caused alone (`isolate`): then each unsettled entry is flushed again on its own, so one
 * bad entry fails alone and the others commit. Only flushes that change nothing until their
 * write has committed may isolate.
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
    private readonly isolate: (err: unknown) => boolean = () => false,
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
    const batch = this.pending.splice(0).map(tracked);
    if (!batch.length) return;
    try {
      await this.flush(batch);
    } catch (err) {
      // Entries the flush already answered keep their outcome.
      const open = batch.filter((b) => !b.settled);
      if (open.length > 1 && this.isolate(err)) {
        for (const b of open) await this.flush([b]).catch((alone: unknown) => b.reject(alone));
        return;
      }
      for (const b of open) b.reject(err);
    }
  }
}

/** An entry that knows whether it has been settled (settling twice is a no-op). */
function tracked<I, R>(entry: Pending<I, R>): Pending<I, R> & { settled: boolean } {
  const t = {
    item: entry.item,
    settled: false,
    resolve(value: R) {
      t.settled = true;
      entry.resolve(value);
    },
    reject(err: unknown) {
      t.settled = true;
      entry.reject(err);
    },
  };
  return t;
}
