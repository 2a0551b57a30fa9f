import type { CheckStatus, HealthCheck } from '@arbiter/contracts';
import { ManualClock } from '@arbiter/test-support';
import { GeneralChecker, HealthChecker } from './checker';
import type { CheckClock } from './clock';
import type { Probe, ProbeResult } from './probes';

const pass: ProbeResult = { ok: true, status: { type: 'TCP', succeeded: true }, message: 'connected' };
const fail: ProbeResult = { ok: false, status: { type: 'TCP', succeeded: false }, message: 'refused' };

/** A probe answering from a script (the last answer repeats), counting its calls. */
/** The manual clock as the checkers read it. */
function checking(clock: ManualClock): CheckClock {
  return {
    now: () => clock.now(),
    after: (ms, fn) => {
      const timer = clock.after(ms, fn);
      return () => timer.cancel();
    },
  };
}

function scripted(answers: ProbeResult[]): Probe & { calls: number } {
  const probe = Object.assign(() => Promise.resolve(answers[Math.min(probe.calls++, answers.length - 1)]), { calls: 0 });
  return probe;
}

/** A probe that answers `answer` only once aborted; `aborted` says whether it was. */
function hanging(answer: ProbeResult): { probe: Probe; aborted: () => boolean } {
  let aborted = false;
  const probe: Probe = (signal) =>
    new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        aborted = true;
        resolve(answer);
      });
    });
  return { probe, aborted: () => aborted };
}

const tcp: HealthCheck = { probe: { type: 'TCP', port: 1 }, delaySeconds: 5, intervalSeconds: 2, timeoutSeconds: 1 };

function health(spec: HealthCheck, probe: Probe, clock: ManualClock) {
  const told: boolean[] = [];
  const kills: string[] = [];
  const checker = new HealthChecker(spec, probe, checking(clock), { health: (h) => told.push(h), kill: (m) => kills.push(m) });
  return { checker, told, kills };
}

describe('HealthChecker', () => {
  it('waits out the delay, then probes every interval', async () => {
    const clock = new ManualClock();
    const probe = scripted([pass]);
    health(tcp, probe, clock);
    await clock.advance(4_999);
    expect(probe.calls).toBe(0);
    await clock.advance(1);
    expect(probe.calls).toBe(1);
    await clock.advance(2_000 * 3);
    expect(probe.calls).toBe(4);
  });

  it('tells healthy once, unhealthy once, and kills after consecutiveFailures failures', async () => {
    const clock = new ManualClock();
    const probe = scripted([pass, pass, fail, fail, fail, fail]);
    const { told, kills } = health({ ...tcp, gracePeriodSeconds: 0, consecutiveFailures: 3 }, probe, clock);
    await clock.advance(5_000 + 2_000 * 3);
    expect(told).toEqual([true, false]);
    expect(kills).toEqual([]);
    await clock.advance(2_000);
    expect(kills).toHaveLength(1);
    expect(kills[0]).toMatch(/failed 3 times in a row \(last: refused\)/);
    // It stops once it asked for the kill.
    const calls = probe.calls;
    await clock.advance(20_000);
    expect(probe.calls).toBe(calls);
    expect(clock.pending).toBe(0);
  });

  it('a success resets the count of failures', async () => {
    const clock = new ManualClock();
    const probe = scripted([pass, fail, fail, pass, fail, fail, pass]);
    const { told, kills } = health({ ...tcp, gracePeriodSeconds: 0, consecutiveFailures: 3 }, probe, clock);
    await clock.advance(5_000 + 2_000 * 10);
    expect(told).toEqual([true, false, true, false, true]);
    expect(kills).toEqual([]);
  });

  it('ignores failures in the grace period until the first success', async () => {
    const clock = new ManualClock();
    const probe = scripted([fail, fail, fail, fail, pass, fail]);
    const { told, kills } = health({ ...tcp, delaySeconds: 0, gracePeriodSeconds: 7, consecutiveFailures: 1 }, probe, clock);
    // Probes at 0, 2, 4, 6: in the grace period, nothing said.
    await clock.advance(6_000);
    expect(probe.calls).toBe(4);
    expect(told).toEqual([]);
    // At 8 a success, at 10 a failure: past the first success the grace is over.
    await clock.advance(4_000);
    expect(told).toEqual([true, false]);
    expect(kills).toHaveLength(1);
  });

  it('a failure after the grace period counts even without a success', async () => {
    const clock = new ManualClock();
    const { told, kills } = health({ ...tcp, delaySeconds: 0, gracePeriodSeconds: 3, consecutiveFailures: 2 }, scripted([fail]), clock);
    await clock.advance(4_000);
    expect(told).toEqual([false]);
    expect(kills).toEqual([]);
    await clock.advance(2_000);
    expect(kills).toHaveLength(1);
  });

  it('a probe past its timeout failed', async () => {
    const clock = new ManualClock();
    const { probe, aborted } = hanging(pass);
    const { told } = health({ ...tcp, delaySeconds: 0, gracePeriodSeconds: 0, timeoutSeconds: 3 }, probe, clock);
    await clock.advance(2_999);
    expect(told).toEqual([]);
    await clock.advance(1);
    expect(told).toEqual([false]);
    expect(aborted()).toBe(true);
  });

  it('starts no probe while a timed-out one is still ending (its command not yet gone)', async () => {
    const clock = new ManualClock();
    let calls = 0;
    let gone!: () => void;
    const probe: Probe = (signal) => {
      calls++;
      return new Promise((resolve) => signal.addEventListener('abort', () => (gone = () => resolve(pass))));
    };
    const { told } = health({ ...tcp, delaySeconds: 0, gracePeriodSeconds: 0, timeoutSeconds: 3 }, probe, clock);
    await clock.advance(3_000 + 2_000 * 3);
    expect(calls).toBe(1);
    expect(told).toEqual([]);
    gone();
    await clock.advance(0);
    expect(told).toEqual([false]);
    await clock.advance(2_000);
    expect(calls).toBe(2);
  });

  it('a probe that throws failed', async () => {
    const clock = new ManualClock();
    const { told } = health({ ...tcp, delaySeconds: 0, gracePeriodSeconds: 0 }, () => Promise.reject(new Error('boom')), clock);
    await clock.advance(1);
    expect(told).toEqual([false]);
  });

  it("uses Mesos's defaults (delay 15 s, interval 10 s, grace 10 s, 3 failures)", async () => {
    const clock = new ManualClock();
    const probe = scripted([fail]);
    const { told, kills } = health({ probe: { type: 'TCP', port: 1 } }, probe, clock);
    await clock.advance(14_999);
    expect(probe.calls).toBe(0);
    await clock.advance(1 + 10_000 * 2);
    expect(told).toEqual([false]);
    expect(kills).toHaveLength(1);
  });

  it('started again with the health told before (an agent restarted): no repeat, and no grace period', async () => {
    const clock = new ManualClock();
    const told: boolean[] = [];
    const kills: string[] = [];
    const probe = scripted([pass, pass, fail]);
    new HealthChecker(
      { ...tcp, gracePeriodSeconds: 60, consecutiveFailures: 1 },
      probe,
      checking(clock),
      { health: (h) => told.push(h), kill: (m) => kills.push(m) },
      true,
    );
    await clock.advance(5_000 + 2_000 * 2);
    expect(probe.calls).toBe(3);
    expect(told).toEqual([false]);
    expect(kills).toHaveLength(1);
  });

  it('aborts the probe under way when stopped', async () => {
    const clock = new ManualClock();
    const { probe, aborted } = hanging(fail);
    const { checker, told } = health({ ...tcp, delaySeconds: 0, gracePeriodSeconds: 0 }, probe, clock);
    await clock.advance(1);
    checker.stop();
    await clock.advance(1);
    expect(aborted()).toBe(true);
    expect(told).toEqual([]);
  });

  it('says nothing once stopped', async () => {
    const clock = new ManualClock();
    const { checker, told } = health({ ...tcp, gracePeriodSeconds: 0 }, scripted([fail]), clock);
    checker.stop();
    await clock.advance(60_000);
    expect(told).toEqual([]);
    expect(clock.pending).toBe(0);
  });
});

describe('GeneralChecker', () => {
  it('tells each change of result, never a repeat', async () => {
    const clock = new ManualClock();
    const code = (exitCode: number): ProbeResult => ({ ok: exitCode === 0, status: { type: 'COMMAND', exitCode }, message: '' });
    const probe = scripted([code(0), code(0), code(1), code(1), code(0)]);
    const told: CheckStatus[] = [];
    new GeneralChecker(
      { probe: { type: 'COMMAND', command: { shell: 'true' } }, delaySeconds: 1, intervalSeconds: 1 },
      probe,
      checking(clock),
      (s) => told.push(s),
    );
    await clock.advance(6_000);
    expect(told).toEqual([
      { type: 'COMMAND', exitCode: 0 },
      { type: 'COMMAND', exitCode: 1 },
      { type: 'COMMAND', exitCode: 0 },
    ]);
  });

  it('started again with the result told before: not told again', async () => {
    const clock = new ManualClock();
    const probe = scripted([{ ok: false, status: { type: 'COMMAND', exitCode: 3 }, message: '' }]);
    const told: CheckStatus[] = [];
    const check = { probe: { type: 'COMMAND' as const, command: { shell: 'true' } }, delaySeconds: 0, intervalSeconds: 1 };
    new GeneralChecker(check, probe, checking(clock), (s) => told.push(s), { type: 'COMMAND', exitCode: 3 });
    await clock.advance(3_000);
    expect(probe.calls).toBe(4);
    expect(told).toEqual([]);
  });
});
