/**
 * Which container holds which GPUs (Mesos's NvidiaGpuAllocator): whole GPUs by index, the lowest
 * free first. Every change is checkpointed (one file, replaced atomically) with the container's
 * first process, so that a restarted agent gives running containers their GPUs back and frees
 * those of containers that ended while it was away.
 */
import * as fs from 'node:fs';

interface Holder {
  indices: number[];
  /** The container's first process and its start (clock ticks), once launched: tells it from a reused pid. */
  pid?: number;
  startTicks?: number;
}

/** Not enough free GPUs for a container. */
export class NoGpuLeft extends Error {}

export class GpuAllocator {
  private readonly holders = new Map<string, Holder>();

  constructor(
    /** The indices of the GPUs handed out. */
    readonly indices: number[],
    /** Where the holders are checkpointed (none: not kept). */
    private readonly file?: string,
  ) {
    if (!file) return;
    let saved: Record<string, Partial<Holder>> = {};
    try {
      saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Partial<Holder>>;
    } catch {
      // First start, or an unreadable record: nothing is held.
    }
    for (const [name, h] of Object.entries(saved)) {
      // GPUs this agent no longer manages (its configuration changed) are not held.
      const kept = (h.indices ?? []).filter((i) => indices.includes(i));
      if (kept.length) this.holders.set(name, { ...h, indices: kept });
    }
  }

  /** The GPUs `container` holds (none if it holds none). */
  held(container: string): number[] {
    return this.holders.get(container)?.indices ?? [];
  }

  /** The GPUs no container holds, lowest first. */
  free(): number[] {
    const taken = new Set([...this.holders.values()].flatMap((h) => h.indices));
    return this.indices.filter((i) => !taken.has(i)).sort((a, b) => a - b);
  }

  /**
   * Makes `container` hold `count` GPUs: it keeps those it has, takes the lowest free ones when
   * it needs more, and gives back its highest when it needs fewer. Throws NoGpuLeft (holding
   * what it held) when too few are free.
   */
  resize(container: string, count: number): number[] {
    if (!Number.isInteger(count) || count < 0) throw new NoGpuLeft(`gpus must be a whole number, not ${count}`);
    const holder = this.holders.get(container) ?? { indices: [] };
    const has = [...holder.indices].sort((a, b) => a - b);
    if (count === has.length) return has;
    let next: number[];
    if (count < has.length) next = has.slice(0, count);
    else {
      const free = this.free();
      if (free.length < count - has.length)
        throw new NoGpuLeft(
          `the task needs ${count} GPU(s) and ${free.length + has.length} of this agent's ${this.indices.length} are free for it`,
        );
      next = [...has, ...free.slice(0, count - has.length)].sort((a, b) => a - b);
    }
    if (next.length) this.holders.set(container, { ...holder, indices: next });
    else this.holders.delete(container);
    this.save();
    return next;
  }

  /** The container's first process started: recorded, so a restarted agent can tell whether it still runs. */
  started(container: string, pid: number, startTicks: number | undefined): void {
    const holder = this.holders.get(container);
    if (!holder) return;
    Object.assign(holder, { pid, startTicks });
    this.save();
  }

  /** The container ended: its GPUs are free again. */
  release(container: string): void {
    if (this.holders.delete(container)) this.save();
  }

  /**
   * After an agent restart: holders whose first process is gone (or never started) let go of
   * their GPUs. Returns the containers that still hold some.
   */
  recover(running: (pid: number, startTicks: number | undefined) => boolean): string[] {
    let changed = false;
    for (const [name, h] of this.holders)
      if (h.pid === undefined || !running(h.pid, h.startTicks)) {
        this.holders.delete(name);
        changed = true;
      }
    if (changed) this.save();
    return [...this.holders.keys()];
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.holders)));
    fs.renameSync(tmp, this.file);
  }
}
