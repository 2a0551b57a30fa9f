/**
 * Max completion time (Mesos's TaskInfo.max_completion_time): a task still running this long
 * after its process started has gone over its limit, and ends FAILED with
 * REASON_MAX_COMPLETION_TIME_REACHED. Its start is taken when the isolator holds the process;
 * for a task recovered after an agent restart, from the process's own start time in /proc, so
 * the deadline survives the restart.
 */
import * as fs from 'node:fs';
import type { Container, Limitation, TaskIsolator } from './isolator';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on every Linux architecture Arbiter runs on). */
const USER_HZ = 100;

let bootMs: number | undefined;

/** When the machine booted (ms since the epoch), from /proc/stat's btime. */
function bootTimeMs(): number {
  bootMs ??= Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1] ?? 0) * 1000;
  return bootMs;
}

/** When a process started (ms since the epoch), or undefined once it is gone. */
export function processStartMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return bootTimeMs() + (ticks * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

export class CompletionDeadline implements TaskIsolator {
  readonly name = 'max_completion_time';
  /** When each container's process started (ms), by container name. */
  private readonly started = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  isolate(c: Container): void {
    if (c.limits.completionSeconds !== undefined) this.started.set(c.name, this.now());
  }

  watch(c: Container): Limitation | undefined {
    const limit = c.limits.completionSeconds;
    if (limit === undefined || c.pid === undefined) return undefined;
    let start = this.started.get(c.name);
    if (start === undefined) this.started.set(c.name, (start = processStartMs(c.pid) ?? this.now()));
    if (this.now() - start < limit * 1000) return undefined;
    return { reason: 'REASON_MAX_COMPLETION_TIME_REACHED', message: `still running after its max completion time of ${limit} s` };
  }

  cleanup(c: Container): boolean {
    this.started.delete(c.name);
    return true;
  }
}
