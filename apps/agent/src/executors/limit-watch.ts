/**
 * What running tasks may use, watched: memory every 250 ms (the kernel's kills in a memory
 * cgroup, or polling without one; see the memory isolators) and disk every
 * `diskCheckIntervalMs` (Mesos's disk/du, measured off the event loop; a check still under way
 * is not started twice). A task over a limit is handed to `over`, which ends it.
 */
import type { Containerizer } from '../containerizer/containerizer';
import type { Limitation } from '../containerizer/isolators/isolator';
import type { RunningTask } from './task';

const MEMORY_POLL_MS = 250;
/** How often isolator modules' watches run (docs/modules.md). */
const MODULES_POLL_MS = 1_000;

export class LimitWatch {
  /** Whether disk use is measured (and enforced). */
  readonly diskChecked: boolean;
  private readonly memory: NodeJS.Timeout;
  private readonly disk?: NodeJS.Timeout;
  private diskCheck?: Promise<void>;
  private readonly modules?: NodeJS.Timeout;
  private modulesCheck?: Promise<void>;

  constructor(
    private readonly containerizer: Containerizer,
    /** The running tasks to watch (those not ending already). */
    private readonly watched: () => RunningTask[],
    private readonly over: (task: RunningTask, found: Limitation) => void,
    diskEveryMs: number,
  ) {
    this.memory = setInterval(() => this.enforceMemory(), MEMORY_POLL_MS);
    this.memory.unref();
    if (containerizer.hooks.isolator) {
      this.modules = setInterval(() => void this.checkModules(), MODULES_POLL_MS);
      this.modules.unref();
    }
    this.diskChecked = diskEveryMs > 0;
    if (diskEveryMs > 0) {
      this.disk = setInterval(() => void this.checkDisk(), diskEveryMs);
      this.disk.unref();
    }
  }

  /** Disk use of every running task with a `disk` resource; one over it is handed to `over` (REASON_CONTAINER_LIMITATION_DISK). */
  checkDisk(): Promise<void> {
    this.diskCheck ??= this.measureDisk().finally(() => (this.diskCheck = undefined));
    return this.diskCheck;
  }

  /** What isolator modules' watches find; one that finds a limitation is handed to `over` (a check under way is not started twice). */
  checkModules(): Promise<void> {
    this.modulesCheck ??= (async () => {
      for (const t of this.watched()) {
        const found = await this.containerizer.hooks.watch(t.container);
        if (found && this.watched().includes(t)) this.over(t, found);
      }
    })().finally(() => (this.modulesCheck = undefined));
    return this.modulesCheck;
  }

  stop(): void {
    clearInterval(this.memory);
    if (this.modules) clearInterval(this.modules);
    if (this.disk) clearInterval(this.disk);
  }

  private async measureDisk(): Promise<void> {
    for (const t of this.watched()) {
      if (t.container.limits.diskBytes === undefined) continue;
      const found = await this.containerizer.disk.watch(t.container);
      // Still watched once measured (it may have ended meanwhile).
      if (found && this.watched().includes(t)) this.over(t, found);
    }
  }

  private enforceMemory(): void {
    for (const t of this.watched()) {
      const found = this.containerizer.limitation(t.container);
      if (found) this.over(t, found);
    }
  }
}
