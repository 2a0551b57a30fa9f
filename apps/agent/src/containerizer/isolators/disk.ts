/** The disk/du isolator: a sandbox's allocated blocks, symlinks not followed. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, Limitation, TaskIsolator } from './isolator';

/** Bytes a directory tree takes on disk (Mesos's disk/du): allocated blocks, symlinks not followed. */
export function diskUsage(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const at = stack.pop();
    if (at === undefined) break;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch {
      continue;
    }
    total += st.blocks * 512;
    if (!st.isDirectory()) continue;
    try {
      for (const e of fs.readdirSync(at)) stack.push(path.join(at, e));
    } catch {
      // Unreadable: counted as far as we could.
    }
  }
  return total;
}

/** A task over its `disk` is ended (Mesos's `disk/du`: measured, not hard-limited). */
export class DiskUsage implements TaskIsolator {
  readonly name = 'disk/du';

  watch(c: Container): Limitation | undefined {
    const limit = c.limits.diskBytes;
    if (limit === undefined) return undefined;
    const used = diskUsage(c.sandbox);
    if (used <= limit) return undefined;
    return {
      reason: 'REASON_CONTAINER_LIMITATION_DISK',
      message: `disk limit exceeded: the sandbox uses ${Math.round(used / 1024 / 1024)} MB of ${limit / 1024 / 1024} MB`,
    };
  }
}
