/**
 * What modules did, per module and point: calls, failures (a throw, a rejected promise, an
 * answer of the wrong shape) and timeouts. Hosts show them as metrics.
 */
import type { ExtensionPoint } from './points';

export interface ModuleCount {
  module: string;
  point: ExtensionPoint;
  calls: number;
  failures: number;
  timeouts: number;
}

/** Where a failure is reported (logged by the host); `fields` carry the module, point and error. */
export type ModuleLog = (message: string, fields: Record<string, unknown>) => void;

export class ModuleCounters {
  private readonly counts = new Map<string, ModuleCount>();

  constructor(private readonly log: ModuleLog = () => undefined) {}

  of(module: string, point: ExtensionPoint): ModuleCount {
    const key = `${module}\u0000${point}`;
    let count = this.counts.get(key);
    if (!count) this.counts.set(key, (count = { module, point, calls: 0, failures: 0, timeouts: 0 }));
    return count;
  }

  /** A call that failed: counted and logged, once per call, with what the point does instead. */
  failed(count: ModuleCount, error: unknown, instead: string, timedOut = false): void {
    if (timedOut) count.timeouts++;
    else count.failures++;
    const message = error instanceof Error ? error.message : String(error);
    this.log(`module ${count.module} failed at ${count.point}: ${message}; ${instead}`, {
      module: count.module,
      point: count.point,
      error: message,
      ...(timedOut ? { timedOut } : {}),
    });
  }

  all(): ModuleCount[] {
    return [...this.counts.values()].map((c) => ({ ...c }));
  }
}
