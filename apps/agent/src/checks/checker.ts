/**
 * The checkers (Mesos's src/checks/): after `delaySeconds`, a probe every `intervalSeconds`,
 * each aborted past `timeoutSeconds` (a timed-out probe failed).
 *
 * A health checker tells each change of health. Failures in the grace period, until the first
 * success, are ignored; past it, `consecutiveFailures` failures in a row mean the task is to be
 * killed (once; the checker stops there). Unlike Mesos, which tells every failure, only the
 * changes (healthy, unhealthy) are told: the updates a framework sees say something new.
 *
 * A general checker tells each change of its result (CheckStatus) and never acts on it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Check, CheckStatus, HealthCheck } from '@arbiter/contracts';
import type { CheckClock } from './clock';
import type { Probe, ProbeResult } from './probes';

/** Mesos's defaults (mesos.proto HealthCheck and CheckInfo). */
const CHECK_DEFAULTS = { delaySeconds: 15, intervalSeconds: 10, timeoutSeconds: 20, gracePeriodSeconds: 10, consecutiveFailures: 3 };

abstract class Periodic {
  private stopped = false;
  private cancel?: () => void;
  /** The probe under way, aborted when the checker stops (its command killed). */
  private probing?: AbortController;
  protected readonly startedAt: number;

  constructor(
    private readonly spec: Check,
    private readonly probe: Probe,
    protected readonly clock: CheckClock,
  ) {
    this.startedAt = clock.now();
    this.next(1000 * (spec.delaySeconds ?? CHECK_DEFAULTS.delaySeconds));
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.probing?.abort();
  }

  protected abstract observe(result: ProbeResult): void;

  private next(ms: number): void {
    if (!this.stopped) this.cancel = this.clock.after(ms, () => void this.run());
  }

  private async run(): Promise<void> {
    const result = await this.probeWithin(1000 * (this.spec.timeoutSeconds ?? CHECK_DEFAULTS.timeoutSeconds));
    if (this.stopped) return;
    this.observe(result);
    this.next(1000 * (this.spec.intervalSeconds ?? CHECK_DEFAULTS.intervalSeconds));
  }

  private async probeWithin(ms: number): Promise<ProbeResult> {
    const abort = (this.probing = new AbortController());
    let cancel = () => undefined as unknown;
    const timedOut = new Promise<ProbeResult>((resolve) => {
      cancel = this.clock.after(ms, () => {
        abort.abort();
        resolve({ ok: false, status: { type: this.spec.probe.type }, message: `no answer within ${ms / 1000} s` });
      });
    });
    const probed = this.probe(abort.signal).catch((e: unknown) => ({
      ok: false,
      status: { type: this.spec.probe.type },
      message: e instanceof Error ? e.message : String(e),
    }));
    try {
      return await Promise.race([probed, timedOut]);
    } finally {
      cancel();
      abort.abort();
      // An aborted probe is waited for (its command killed and gone), so that no two probes overlap.
      await probed;
    }
  }
}

interface HealthHooks {
  /** The task's health changed. */
  health(healthy: boolean, message: string): void;
  /** `consecutiveFailures` failures in a row: the task is to be killed. */
  kill(message: string): void;
}

export class HealthChecker extends Periodic {
  private initializing = true;
  private failures = 0;
  private healthy?: boolean;

  /** `known`: the health told before (an agent restarted): the grace period is over, and it is not told again. */
  constructor(
    private readonly check: HealthCheck,
    probe: Probe,
    clock: CheckClock,
    private readonly hooks: HealthHooks,
    known?: boolean,
  ) {
    super(check, probe, clock);
    this.healthy = known;
    this.initializing = known === undefined;
  }

  protected observe(result: ProbeResult): void {
    if (result.ok) {
      this.initializing = false;
      this.failures = 0;
      this.tell(true, result.message);
      return;
    }
    const grace = 1000 * (this.check.gracePeriodSeconds ?? CHECK_DEFAULTS.gracePeriodSeconds);
    if (this.initializing && grace > 0 && this.clock.now() - this.startedAt <= grace) return;
    this.failures++;
    this.tell(false, result.message);
    const limit = this.check.consecutiveFailures ?? CHECK_DEFAULTS.consecutiveFailures;
    if (this.failures < limit) return;
    this.stop();
    this.hooks.kill(`the health check failed ${this.failures} times in a row (last: ${result.message})`);
  }

  private tell(healthy: boolean, message: string): void {
    if (this.healthy === healthy) return;
    this.healthy = healthy;
    this.hooks.health(healthy, message);
  }
}

export class GeneralChecker extends Periodic {
  private last?: CheckStatus;

  /** `known`: the result told before (an agent restarted): not told again. */
  constructor(
    check: Check,
    probe: Probe,
    clock: CheckClock,
    private readonly changed: (status: CheckStatus) => void,
    known?: CheckStatus,
  ) {
    super(check, probe, clock);
    this.last = known;
  }

  protected observe(result: ProbeResult): void {
    if (isDeepStrictEqual(this.last, result.status)) return;
    this.last = result.status;
    this.changed(result.status);
  }
}
