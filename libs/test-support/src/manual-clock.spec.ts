import { ManualClock } from './manual-clock';

describe('ManualClock', () => {
  it('fires timers in time order as time reaches them, repeating intervals', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const log: string[] = [];
    clock.after(300, () => log.push(`once@${clock.now()}`));
    const every = clock.every(100, () => log.push(`every@${clock.now()}`));
    const cancelled = clock.after(50, () => log.push('cancelled'));
    cancelled.cancel();
    await clock.advance(250);
    expect(log).toEqual(['every@100', 'every@200']);
    expect(clock.now()).toBe(250);
    expect(clock.date().toISOString()).toBe('2026-01-01T00:00:00.250Z');
    await clock.advance(100);
    // At the same time, the timer set first fires first: the interval was re-armed at 200.
    expect(log).toEqual(['every@100', 'every@200', 'once@300', 'every@300']);
    every.cancel();
    expect(clock.pending).toBe(0);
  });

  it('lets the work a timer starts run before the next timer fires', async () => {
    const clock = new ManualClock();
    const log: string[] = [];
    clock.after(10, () => {
      void Promise.resolve().then(() => log.push('work of the first'));
    });
    clock.after(20, () => log.push('second'));
    await clock.advance(20);
    expect(log).toEqual(['work of the first', 'second']);
  });
});
