/**
 * Time, injected. Every part of the master reads the time and sets timers through a `Clock`,
 * so that tests can run on a `ManualClock` and advance time instead of sleeping.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds on a monotonic clock (durations, timeouts, the allocator's clock). */
  now(): number;
  /** The wall-clock time (what is stored and shown). */
  date(): Date;
  /** Runs `fn` once after `ms`. Timers never keep the process alive. */
  after(ms: number, fn: () => void): TimerHandle;
  /** Runs `fn` every `ms`. */
  every(ms: number, fn: () => void): TimerHandle;
}

/** Injection token of the master's clock. */
export const CLOCK = Symbol('Clock');

/** The process's own clocks and timers. */
export class SystemClock implements Clock {
  now(): number {
    return performance.now();
  }

  date(): Date {
    return new Date();
  }

  after(ms: number, fn: () => void): TimerHandle {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  }

  every(ms: number, fn: () => void): TimerHandle {
    const t = setInterval(fn, ms);
    t.unref();
    return { cancel: () => clearInterval(t) };
  }
}
