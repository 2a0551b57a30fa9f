/**
 * The disk/du isolator: a sandbox's allocated blocks, symlinks not followed. A sandbox may hold
 * hundreds of thousands of files, so it is measured off the event loop: a walk of asynchronous
 * reads, a folder's entries a few at a time, so the agent keeps heartbeating and answering
 * while it measures.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, Limitation, TaskIsolator } from './isolator';

/** Entries read and stat'ed per step of the walk. */
const BATCH = 128;

/** Bytes a directory tree takes on disk (Mesos's disk/du), measured without blocking the event loop. */
export async function diskUsage(dir: string): Promise<number> {
  let total = 0;
  const folders: string[] = [];
  const stat = async (paths: string[]) => {
    const stats = await Promise.all(paths.map((p) => fs.promises.lstat(p).catch(() => undefined)));
    for (const [i, st] of stats.entries()) {
      if (!st) continue; // Gone while we looked.
      total += st.blocks * 512;
      if (st.isDirectory()) folders.push(paths[i]);
    }
  };
  await stat([dir]);
  for (let at = folders.pop(); at !== undefined; at = folders.pop()) {
    let entries: fs.Dir;
    try {
      entries = await fs.promises.opendir(at, { bufferSize: BATCH });
    } catch {
      continue; // Unreadable: counted as far as we could.
    }
    let batch: string[] = [];
    try {
      for await (const e of entries) {
        batch.push(path.join(at, e.name));
        if (batch.length < BATCH) continue;
        await stat(batch);
        batch = [];
      }
    } catch {
      // Unreadable part way: counted as far as we could.
    }
    await stat(batch);
  }
  return total;
}

/** A task over its `disk` is ended (Mesos's `disk/du`: measured, not hard-limited). */
export class DiskUsage implements TaskIsolator {
  readonly name = 'disk/du';

  async watch(c: Container): Promise<Limitation | undefined> {
    const limit = c.limits.diskBytes;
    if (limit === undefined) return undefined;
    const used = await diskUsage(c.sandbox);
    if (used <= limit) return undefined;
    return {
      reason: 'REASON_CONTAINER_LIMITATION_DISK',
      message: `disk limit exceeded: the sandbox uses ${Math.round(used / 1024 / 1024)} MB of ${limit / 1024 / 1024} MB`,
    };
  }
}
