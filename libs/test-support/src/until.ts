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
 * Polls `check` until it holds; fails after `ms` (the tier's default unless given) naming what
 * was awaited. `until(check, 'what')`, `until(check, ms)` and `until(check, ms, 'what')`.
 */
export async function until(check: () => boolean | Promise<boolean>, msOrWhat?: number | string, what?: string): Promise<void> {
  const ms = typeof msOrWhat === 'number' ? msOrWhat : defaultMs;
  const awaited = typeof msOrWhat === 'string' ? msOrWhat : (what ?? 'condition');
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${awaited} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A value the test needs to exist (a framework's id once subscribed, say): fails the test when it does not. */
export function defined<T>(value: T | null | undefined, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
