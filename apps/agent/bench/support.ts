/** What the agent's benchmarks share: percentiles, waiting on a condition, running `main`. */

/** The p-th percentile of `xs`, to a tenth. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] * 10) / 10;
}

/** Polls `check` every 2 ms (the benchmarks time what it waits for). */
export async function waitFor(check: () => boolean, what = 'a condition', timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Runs the benchmark; a failure is printed and makes the exit code 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
