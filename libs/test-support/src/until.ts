/**
 * Waiting for what happens in real time: a real process, a socket, a database. Each tier sets
 * its own default bound once in its Jest setup (`setUntilTimeout`), so no test file wraps
 * `until` to change it. Inside the control plane, time is injected: advance a `ManualClock`
 * instead (and prove that something does not happen with `never`).
 */
let defaultMs = 10_000;

/** The bound of `until` when a call gives none (each tier's Jest setup sets it). */
export function setUntilTimeout(ms: number): void {
  defaultMs = ms;
}

/**
 * How much longer than on a machine to themselves the tests' time bounds are
 * (ARBITER_TEST_TIME_SCALE, 1 when unset): `npm test` runs several test files, the browser tests
 * and the checks on each core at once (scripts/test.js sets it from their number), and a bound is
 * a guard against a hang, not a budget. It stretches `until`'s bounds and each tier's Jest timeout.
 */
export function timeScale(): number {
  const scale = Number(process.env.ARBITER_TEST_TIME_SCALE ?? 1);
  return Number.isFinite(scale) && scale >= 1 ? scale : 1;
}

/** The first pause between two polls. */
const FIRST_PAUSE_MS = 20;
/** The longest pause between two polls of a check that asks another process (returns a promise). */
const LONGEST_PAUSE_MS = 200;

/**
 * Polls `check` until it holds; fails after `ms` (the tier's default unless given, times
 * `timeScale()`) naming what was awaited. `until(check, 'what')`, `until(check, ms)` and `until(check, ms, 'what')`.
 *
 * A check of the test's own memory is polled every 20 ms. A check that returns a promise asks
 * another process (an HTTP call, a query) whose CPU time it costs, on a machine running many test
 * files at once: its pauses grow by half each time up to 200 ms (20 ms, 30, 45, ... after the
 * first half second, five polls a second).
 */
export async function until(check: () => boolean | Promise<boolean>, msOrWhat?: number | string, what?: string): Promise<void> {
  const ms = (typeof msOrWhat === 'number' ? msOrWhat : defaultMs) * timeScale();
  const awaited = typeof msOrWhat === 'string' ? msOrWhat : (what ?? 'condition');
  const end = Date.now() + ms;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const held = check();
    if (await held) return;
    if (Date.now() > end) throw new Error(`${awaited} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, pause));
    if (held instanceof Promise) pause = Math.min(LONGEST_PAUSE_MS, pause * 1.5);
  }
}

/** A value the test needs to exist (a framework's id once subscribed, say): fails the test when it does not. */
export function defined<T>(value: T | null | undefined, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
