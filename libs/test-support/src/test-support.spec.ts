import { defined, never, setUntilTimeout, timeScale, until } from './index';

/** Runs `body` with ARBITER_TEST_TIME_SCALE set to `scale` (unset when undefined), then puts it back. */
async function withScale(scale: string | undefined, body: () => Promise<void>): Promise<void> {
  const before = process.env.ARBITER_TEST_TIME_SCALE;
  if (scale === undefined) delete process.env.ARBITER_TEST_TIME_SCALE;
  else process.env.ARBITER_TEST_TIME_SCALE = scale;
  try {
    await body();
  } finally {
    if (before === undefined) delete process.env.ARBITER_TEST_TIME_SCALE;
    else process.env.ARBITER_TEST_TIME_SCALE = before;
  }
}

/** A clock whose timers fire when `advance` reaches them (what the control plane's ManualClock does). */
class StepClock {
  now = 0;
  readonly timers: Array<{ at: number; fn: () => void }> = [];
  advance(ms: number): Promise<void> {
    this.now += ms;
    for (const t of this.timers.filter((x) => x.at <= this.now)) {
      this.timers.splice(this.timers.indexOf(t), 1);
      t.fn();
    }
    return Promise.resolve();
  }
}

describe('never', () => {
  it('passes when the condition stays false over the whole span, moving only injected time', async () => {
    const clock = new StepClock();
    let fired = false;
    clock.timers.push({ at: 5_000, fn: () => (fired = true) });
    const started = Date.now();
    await never(clock, () => fired, 4_999, { what: 'the timer' });
    expect(clock.now).toBe(4_999);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('fails, naming the condition and when it happened, as soon as it holds', async () => {
    const clock = new StepClock();
    let fired = false;
    clock.timers.push({ at: 300, fn: () => (fired = true) });
    await expect(never(clock, () => fired, 1_000, { step: 100, what: 'the timer' })).rejects.toThrow(
      'the timer happened after 300 ms, expected never within 1000 ms',
    );
    expect(clock.now).toBe(300);
  });
});

describe('until', () => {
  it('resolves once the condition holds, given as (check, ms, what) or (check, what)', async () => {
    let n = 0;
    await until(() => ++n === 3, 1_000, 'the third poll');
    expect(n).toBe(3);
    await until(() => ++n === 5, 'the fifth poll');
    expect(n).toBe(5);
  });

  it("fails naming what it awaited and for how long, by default for the tier's bound", async () => {
    await withScale(undefined, async () => {
      await expect(until(() => false, 50, 'nothing')).rejects.toThrow('nothing not met within 50 ms');
      setUntilTimeout(40);
      try {
        await expect(until(() => Promise.resolve(false), 'nothing at all')).rejects.toThrow(/^nothing at all not met within 40 ms$/);
      } finally {
        setUntilTimeout(5_000);
      }
    });
  });

  it('stretches its bounds by ARBITER_TEST_TIME_SCALE (a whole run shares the cores), never shrinks them', async () => {
    await withScale('3', async () => {
      expect(timeScale()).toBe(3);
      await expect(until(() => false, 20, 'nothing')).rejects.toThrow('nothing not met within 60 ms');
    });
    for (const odd of ['0.5', 'fast', '-2'])
      await withScale(odd, () => {
        expect(timeScale()).toBe(1);
        return Promise.resolve();
      });
  });
});

describe('until: how often it polls', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** How many times `check` was polled in 2 s of a wait that never ends. */
  const pollsIn2s = async (check: () => boolean | Promise<boolean>) => {
    let polls = 0;
    await withScale(undefined, async () => {
      const waiting = until(
        () => {
          polls++;
          return check();
        },
        2_000,
        'never',
      ).catch(() => undefined);
      await jest.advanceTimersByTimeAsync(2_100);
      await waiting;
    });
    return polls;
  };

  it('polls a check of memory every 20 ms, and one that asks another process less and less often, down to 5 a second', async () => {
    const memory = await pollsIn2s(() => false);
    const io = await pollsIn2s(() => Promise.resolve(false));
    expect(memory).toBeGreaterThanOrEqual(95);
    // 20, 30, 45, 67.5, 101, 152, then 200 ms: 7 polls in the first 416 ms, 8 more in the next 1.6 s.
    expect(io).toBeGreaterThanOrEqual(14);
    expect(io).toBeLessThanOrEqual(17);
  });
});

describe('defined', () => {
  it('passes a value through and fails on a missing one', () => {
    expect(defined(0)).toBe(0);
    expect(() => defined(undefined, 'the framework id')).toThrow('the framework id is missing');
  });
});
