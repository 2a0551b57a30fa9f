/**
 * A clock that moves only when told (for tests): `advance(ms)` fires the timers that fall due,
 * in order, letting the work each one starts (a probe's promise) settle before the next.
 */
import type { CheckClock } from './clock';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ManualCheckClock implements CheckClock {
  private ms = 0;
  private seq = 0;
  private readonly timers = new Set<Timer>();

  now(): number {
    return this.ms;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.ms + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.size;
  }

  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    for (;;) {
      await drain();
      let next: Timer | undefined;
      for (const t of this.timers) if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (!next) break;
      this.timers.delete(next);
      this.ms = next.at;
      next.fn();
    }
    this.ms = end;
    await drain();
  }
}
