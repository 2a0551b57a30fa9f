/**
 * A clock that moves only when told: `advance(ms)` fires the timers that fall due, in order (at
 * the same time, the one set first),
 * letting the work each one starts run before the next. Tests use it to reach a timeout, the
 * next allocation cycle or a checker's next probe without sleeping. It has the shape of the
 * control plane's `Clock`; the agent's checker tests adapt it to their `CheckClock`.
 */
export interface TimerHandle {
  cancel(): void;
}

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  every?: number;
}

/** Lets pending promise callbacks and I/O callbacks that are already due run. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ManualClock {
  private ms = 0;
  private seq = 0;
  private readonly timers = new Set<Timer>();

  /** @param epoch the wall-clock time at which it starts (by default the real time now, so that its dates sort with those written by others) */
  constructor(private readonly epoch = Date.now()) {}

  now(): number {
    return this.ms;
  }

  date(): Date {
    return new Date(this.epoch + this.ms);
  }

  after(ms: number, fn: () => void): TimerHandle {
    return this.add({ at: this.ms + Math.max(0, ms), seq: this.seq++, fn });
  }

  every(ms: number, fn: () => void): TimerHandle {
    return this.add({ at: this.ms + ms, seq: this.seq++, fn, every: Math.max(1, ms) });
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing each timer that falls due (in time order) as time reaches it. */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    for (;;) {
      await drain();
      const next = this.nextDue(end);
      if (!next) break;
      this.ms = next.at;
      if (next.every) {
        next.at += next.every;
        next.seq = this.seq++;
      } else this.timers.delete(next);
      next.fn();
    }
    this.ms = end;
    await drain();
  }

  private nextDue(end: number): Timer | undefined {
    let next: Timer | undefined;
    for (const t of this.timers) if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
    return next;
  }

  private add(timer: Timer): TimerHandle {
    this.timers.add(timer);
    return { cancel: () => this.timers.delete(timer) };
  }
}
