/**
 * Time for the checkers, injected: they read it and set their timers through a `CheckClock`, so
 * that tests advance a manual one (@arbiter/test-support's ManualClock) instead of waiting out delays and intervals.
 */
export interface CheckClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Runs `fn` once after `ms`; the returned function cancels it. Timers never keep the process alive. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: CheckClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};
