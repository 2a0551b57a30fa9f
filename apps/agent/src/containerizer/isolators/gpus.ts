/**
 * The gpu/nvidia isolator (Mesos's `gpu/nvidia`): a container asking for `gpus` gets that many
 * whole GPUs (see gpu-allocator.ts), and only those:
 *
 * - its environment names them: NVIDIA_VISIBLE_DEVICES their indices (the NVIDIA container
 *   runtime's convention), CUDA_VISIBLE_DEVICES their UUIDs when known (CUDA numbers only the
 *   devices it can open, in its own order, so an index could name another GPU; a UUID cannot),
 *   else their indices with CUDA_DEVICE_ORDER=PCI_BUS_ID (nvidia-smi's order). A container
 *   without GPUs on a GPU agent gets CUDA_VISIBLE_DEVICES empty (CUDA then sees none) and
 *   NVIDIA_VISIBLE_DEVICES=void. A task cannot override them.
 * - with a cgroups v1 `devices` controller, its devices cgroup denies every other GPU's device
 *   node (major 195), so a task that ignores its environment gets EPERM opening them; its own
 *   GPUs, /dev/nvidiactl and /dev/nvidia-uvm stay allowed (nvidia-smi works without GPUs, as in
 *   Mesos). Without one (cgroups v2 only, where device access is an eBPF program) the
 *   environment is the only fence, and `problem` says so.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processStartTicks } from '../launcher';
import { GpuAllocator } from './gpu-allocator';
import type { Container, ContainerLimits, TaskIsolator } from './isolator';
import type { Gpu, NvidiaGpu } from './nvidia';

export interface GpuOptions {
  /** The GPUs handed out (see detectNvidiaGpus). */
  gpus: NvidiaGpu[];
}

/** The devices cgroup (v1) of this process, from /proc/self/cgroup. */
function ownDevicesCgroup(): string | undefined {
  try {
    const line = fs
      .readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((l) => /^\d+:([^:]*,)?devices(,[^:]*)?:/.test(l));
    return line?.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
  } catch {
    return undefined;
  }
}

/** What a container's environment says of its GPUs (`held`: none, on a GPU agent, hides them all). */
export function gpuEnvironment(held: Gpu[]): Record<string, string> {
  if (held.length === 0) return { CUDA_VISIBLE_DEVICES: '', NVIDIA_VISIBLE_DEVICES: 'void' };
  const byUuid = held.every((g) => g.uuid);
  return {
    NVIDIA_VISIBLE_DEVICES: held.map((g) => g.index).join(','),
    CUDA_VISIBLE_DEVICES: held.map((g) => (byUuid && g.uuid ? g.uuid : g.index)).join(','),
    CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
  };
}

export class NvidiaGpus implements TaskIsolator {
  readonly name = 'gpu/nvidia';
  readonly allocator: GpuAllocator;
  /** Where containers' devices cgroups go (none: no devices controller here). */
  private readonly devicesBase?: string;
  /** Why GPUs are confined by the environment alone, when they are. */
  readonly problem?: string;
  private readonly gpus: NvidiaGpu[];

  constructor(
    options: GpuOptions,
    /** The agent's work directory (the allocation's checkpoint goes there). */
    workDir: string,
    /** The agent's own cgroup name (arbiter/<hash>), as the cgroups isolator's. */
    cgroupName: string,
    root = '/sys/fs/cgroup',
  ) {
    this.gpus = [...options.gpus].sort((a, b) => a.index - b.index);
    this.allocator = new GpuAllocator(
      this.gpus.map((g) => g.index),
      path.join(workDir, 'gpus.json'),
    );
    const own = ownDevicesCgroup();
    const mount = path.join(root, 'devices');
    const base = own === undefined ? undefined : path.join(mount, own, cgroupName);
    try {
      if (!base || !fs.existsSync(path.join(mount, 'devices.deny'))) throw new Error('no cgroups v1 devices controller');
      fs.mkdirSync(base, { recursive: true });
      this.devicesBase = base;
    } catch (e) {
      this.problem = `GPUs are confined by CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES only: ${(e as Error).message} (cgroups v2 only, or not writable)`;
    }
    this.recover();
  }

  /** The GPUs a container holds (for an image's container: its device nodes and the driver). */
  heldBy(c: Container): NvidiaGpu[] {
    const held = this.allocator.held(c.name);
    return this.gpus.filter((g) => held.includes(g.index));
  }

  /** The GPUs as reported with the agent's capabilities. */
  get reported(): Gpu[] {
    return this.gpus.map(({ index, uuid, model }) => ({ index, model, ...(uuid ? { uuid } : {}) }));
  }

  /** Takes the container's GPUs (throws when too few are free), names them in its environment, and keeps it from the others. */
  prepare(c: Container): void {
    const held = this.allocator.resize(c.name, c.limits.gpus ?? 0);
    try {
      this.confine(c, held);
    } catch (e) {
      this.release(c);
      throw e;
    }
    c.env = { ...c.env, ...gpuEnvironment(this.gpus.filter((g) => held.includes(g.index))) };
  }

  isolate(c: Container, pid: number): void {
    const dir = this.dirOf(c);
    if (dir) fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
    this.allocator.started(c.name, pid, processStartTicks(pid));
  }

  /** An executor's container grew or shrank: it holds that many GPUs now (its environment, set at launch, stays). */
  update(c: Container, limits: ContainerLimits): void {
    this.confine(c, this.allocator.resize(c.name, limits.gpus ?? 0));
  }

  /** Its GPUs are free again; its devices cgroup goes once its processes have. */
  cleanup(c: Container): boolean {
    this.allocator.release(c.name);
    const dir = this.dirOf(c);
    if (!dir) return true;
    try {
      fs.rmdirSync(dir);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }

  /** The container's task ended (however it ended, recovered or not): its GPUs are free again. */
  release(c: Container): void {
    this.cleanup(c);
  }

  /** The container's devices cgroup: every GPU but its own denied (an earlier denial of one it now holds lifted). */
  private confine(c: Container, held: number[]): void {
    const dir = this.dirOf(c);
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    for (const g of this.gpus) {
      const rule = `c ${g.major}:${g.minor} rwm`;
      fs.writeFileSync(path.join(dir, held.includes(g.index) ? 'devices.allow' : 'devices.deny'), rule);
    }
  }

  private dirOf(c: Container): string | undefined {
    return this.devicesBase && path.join(this.devicesBase, c.name);
  }

  /** After an agent restart: GPUs of containers that are gone are free, and their devices cgroups removed (those in use stay). */
  private recover(): void {
    this.allocator.recover((pid, startTicks) => startTicks !== undefined && processStartTicks(pid) === startTicks);
    if (!this.devicesBase) return;
    for (const name of fs.readdirSync(this.devicesBase)) {
      try {
        if (fs.statSync(path.join(this.devicesBase, name)).isDirectory()) fs.rmdirSync(path.join(this.devicesBase, name));
      } catch {
        // Still has processes: a running container's.
      }
    }
  }

  /** Removes the agent's own devices cgroup folder when no container's is left in it (best effort). */
  removeBase(): void {
    try {
      if (this.devicesBase) fs.rmdirSync(this.devicesBase);
    } catch {
      // Containers' cgroups still there (running tasks, left to a restarted agent).
    }
  }
}
