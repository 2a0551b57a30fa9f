/** What a test clock must offer: `ManualClock` does. */
export interface AdvancingClock {
  advance(ms: number): Promise<void>;
}

/**
 * Shows that something does not happen within `ms` of injected time, without sleeping: moves
 * the clock forward in steps (each firing the timers that fall due and letting their work run)
 * and fails as soon as `check` holds.
 */
export async function never(
  clock: AdvancingClock,
  check: () => boolean | Promise<boolean>,
  ms: number,
  options: { step?: number; what?: string } = {},
): Promise<void> {
  const step = Math.max(1, options.step ?? Math.ceil(ms / 20));
  for (let passed = 0; ;) {
    if (await check()) throw new Error(`${options.what ?? 'condition'} happened after ${passed} ms, expected never within ${ms} ms`);
    if (passed >= ms) return;
    const next = Math.min(step, ms - passed);
    await clock.advance(next);
    passed += next;
  }
}
