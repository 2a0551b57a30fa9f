/**
 * Garbage collection (Mesos's `gc.cpp`, with its `--gc_delay` and `--gc_disk_headroom`): what
 * ended tasks leave on the agent's disk (their sandboxes and records) is removed once it has
 * been kept for the delay, and sooner as the disk fills: the delay shrinks with the disk's use,
 * to nothing once the free space is down to the headroom. Only what its owner hands over is
 * collected (a task whose end the control plane has acknowledged), never what still runs.
 */
import * as fs from 'node:fs';
import type { SandboxDisk } from '@arbiter/contracts';

export interface GcOptions {
  /** How long an ended task's sandbox and record are kept (default one week, as Mesos). */
  delayMs?: number;
  /** The share of the disk kept free: at this headroom, the delay is nothing (default 0.1, as Mesos). */
  diskHeadroom?: number;
  /** How often the agent sweeps (default every minute; 0: never). */
  intervalMs?: number;
}

/** Something collectable: what it is (for the log), since when it is no longer needed, its files. */
export interface Collectable {
  what: string;
  /** Milliseconds since the epoch. */
  since: number;
  paths: string[];
}

export const DEFAULT_GC_DELAY_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_GC_DISK_HEADROOM = 0.1;
export const DEFAULT_GC_INTERVAL_MS = 60_000;

/** How long things are kept at this disk use (0 to 1): Mesos's `gc_delay * max(0, 1 - headroom - usage)`. */
export function keptFor(delayMs: number, headroom: number, usage: number): number {
  return delayMs * Math.max(0, 1 - headroom - usage);
}

/** The used share (0 to 1) of the filesystem holding `dir`. */
export function diskUsage(dir: string): number {
  const st = fs.statfsSync(dir);
  return st.blocks > 0 ? 1 - st.bavail / st.blocks : 0;
}

/**
 * The disk holding `dir` (the sandboxes) as the GC sees it, for the control plane: its size and
 * free bytes rounded down to a thousandth of it (at least 1 MiB), so that a report changes only
 * when the disk does; undefined when it cannot be read.
 */
export function sandboxDisk(dir: string, headroom = DEFAULT_GC_DISK_HEADROOM): SandboxDisk | undefined {
  try {
    const st = fs.statfsSync(dir);
    const totalBytes = st.blocks * st.bsize;
    const step = Math.max(1024 * 1024, Math.floor(totalBytes / 1000));
    const round = (n: number) => Math.floor(n / step) * step;
    return { totalBytes: round(totalBytes), freeBytes: Math.min(round(st.bavail * st.bsize), round(totalBytes)), gcHeadroom: headroom };
  } catch {
    return undefined;
  }
}

export class GarbageCollector {
  /** What was collected since the agent started. */
  readonly collected = { items: 0, sweeps: 0 };
  private readonly delayMs: number;
  private readonly headroom: number;
  private timer?: NodeJS.Timeout;

  constructor(
    /** What its owners hand over (read at each sweep). */
    private readonly sources: Array<() => Collectable[]>,
    /** The used share of the disk the collectable things are on. */
    private readonly usage: () => number,
    options: GcOptions = {},
    private readonly now: () => number = Date.now,
    /** Told what each sweep removed, or why it failed. */
    private readonly told?: { collected(removed: Collectable[]): void; failed(err: Error): void },
  ) {
    this.delayMs = options.delayMs ?? DEFAULT_GC_DELAY_MS;
    this.headroom = options.diskHeadroom ?? DEFAULT_GC_DISK_HEADROOM;
  }

  /** Sweeps every `ms` (see collect), until stopped. */
  every(ms: number): void {
    this.timer = setInterval(() => this.collect(), ms);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A sweep that tells what it removed, and a failure instead of throwing it (the next sweep tries again). */
  collect(): Collectable[] {
    try {
      const removed = this.sweep();
      if (removed.length) this.told?.collected(removed);
      return removed;
    } catch (err) {
      this.told?.failed(err as Error);
      return [];
    }
  }

  /** Removes what has been kept long enough at the disk's present use; returns it. */
  sweep(): Collectable[] {
    const keep = keptFor(this.delayMs, this.headroom, this.usage());
    const at = this.now();
    const removed: Collectable[] = [];
    for (const source of this.sources)
      for (const c of source()) {
        if (at - c.since < keep) continue;
        for (const p of c.paths) fs.rmSync(p, { recursive: true, force: true });
        removed.push(c);
      }
    this.collected.items += removed.length;
    this.collected.sweeps++;
    return removed;
  }
}
