/**
 * Memory: in a memory cgroup the kernel holds a task to its limit (the cgroups isolator reports
 * when it had to kill); without one, this isolator polls the resident size of the task's
 * process group (a task that leaves its group escapes it) as Mesos's `posix/mem`.
 */
import * as fs from 'node:fs';
import { type Container, type Limitation, mb, type TaskIsolator } from './isolator';

const PAGE_SIZE = 4096;
/** One pass over /proc serves every container watched within this time. */
const SNAPSHOT_MS = 50;

/** Resident bytes per process group, from one pass over /proc. */
export function residentByGroup(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pgid = Number(fields[2]);
      const rssPages = Number(fields[21]);
      out.set(pgid, (out.get(pgid) ?? 0) + rssPages * PAGE_SIZE);
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** The kernel killed a process of the task at its memory cgroup's limit. */
export function kernelMemoryLimitation(limitBytes: number | undefined): Limitation {
  return {
    reason: 'REASON_CONTAINER_LIMITATION_MEMORY',
    message: `memory limit exceeded: the kernel killed the task at its limit of ${limitBytes ? Math.round(limitBytes / 1024 / 1024) : '?'} MB`,
  };
}

export class MemoryPolling implements TaskIsolator {
  readonly name = 'posix/mem';
  private snapshot?: { at: number; rss: Map<number, number> };

  constructor(private readonly now: () => number = Date.now) {}

  watch(c: Container): Limitation | undefined {
    const limit = c.limits.memBytes;
    if (c.cgroup?.dirs.memory || c.pid === undefined || limit === undefined) return undefined;
    const at = this.now();
    if (!this.snapshot || at - this.snapshot.at > SNAPSHOT_MS) this.snapshot = { at, rss: residentByGroup() };
    const used = this.snapshot.rss.get(c.pid) ?? 0;
    if (used <= limit) return undefined;
    return { reason: 'REASON_CONTAINER_LIMITATION_MEMORY', message: `memory limit exceeded: used ${mb(used)} of ${mb(limit)}` };
  }
}
