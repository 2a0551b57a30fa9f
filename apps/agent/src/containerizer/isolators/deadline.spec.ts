import { CompletionDeadline, processStartMs } from './deadline';
import type { Container } from './isolator';

const container = (completionSeconds?: number, pid: number | null = process.pid): Container => ({
  name: 'c',
  sandbox: '/',
  ...(pid !== null ? { pid } : {}),
  limits: { pids: 1, ...(completionSeconds !== undefined ? { completionSeconds } : {}) },
});

describe('max completion time isolator', () => {
  it('ends a task still running its max completion time after it was held, and not a moment before', () => {
    let now = 1_000_000;
    const deadline = new CompletionDeadline(() => now);
    const c = container(2.5);
    deadline.isolate(c);
    now += 2_499;
    expect(deadline.watch(c)).toBeUndefined();
    now += 1;
    expect(deadline.watch(c)).toEqual({
      reason: 'REASON_MAX_COMPLETION_TIME_REACHED',
      message: 'still running after its max completion time of 2.5 s',
    });
    // Cleaned up, a container of the same name starts afresh.
    expect(deadline.cleanup(c)).toBe(true);
    deadline.isolate(c);
    expect(deadline.watch(c)).toBeUndefined();
  });

  it('times a task recovered after a restart from its process start, and leaves tasks without a limit alone', () => {
    // This process started process.uptime() ago: /proc says the same, to a second (btime's precision).
    const started = Date.now() - process.uptime() * 1000;
    expect(Math.abs((processStartMs(process.pid) ?? 0) - started)).toBeLessThan(2_000);
    const deadline = new CompletionDeadline();
    const age = process.uptime();
    expect(deadline.watch(container(age + 3_600))).toBeUndefined();
    expect(new CompletionDeadline().watch(container(Math.max(age - 3, 0.001)))?.reason).toBe('REASON_MAX_COMPLETION_TIME_REACHED');
    expect(deadline.watch(container(undefined))).toBeUndefined();
    expect(deadline.watch(container(1, null))).toBeUndefined();
    expect(processStartMs(2 ** 22 + 1)).toBeUndefined();
  });
});
