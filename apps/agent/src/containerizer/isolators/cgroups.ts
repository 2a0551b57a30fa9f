/**
 * The cgroups isolator (Mesos's `cgroups/mem`, `cgroups/cpu`, `cgroups/pids`, and `posix` when
 * there are none):
 *
 * - cgroups v1 (memory, cpu, pids controllers writable) or v2 (a unified hierarchy with those
 *   controllers): each task gets its own cgroup, created under the agent's own, with a hard
 *   memory limit, a CFS quota from its `cpus` and a pids limit. The task's first process joins
 *   it before it runs anything (see ../launcher.ts), so `setsid` and double forks stay inside,
 *   and a kill reaches every process in it.
 * - posix: when the agent may create no cgroups; process groups and polling only (no hard
 *   limits, see memory.ts), and the agent says so in its log.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, ContainerLimits, Limitation, TaskIsolator } from './isolator';
import { kernelMemoryLimitation } from './memory';

export type IsolationMode = 'cgroups-v1' | 'cgroups-v2' | 'posix';
export type Controller = 'memory' | 'cpu' | 'pids';
const CONTROLLERS: Controller[] = ['memory', 'cpu', 'pids'];

export interface Limits {
  memBytes?: number;
  cpus?: number;
  pids: number;
}

/** A task's cgroup: one directory per controller (v1) or one (v2). */
export interface TaskCgroup {
  dirs: Partial<Record<Controller, string>>;
}

const CFS_PERIOD_US = 100_000;
const MIN_QUOTA_US = 1_000;

/** The cgroups of this process, from /proc/self/cgroup: controller (or '' for v2) -> path. */
function ownCgroups(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const name of m[1].split(',')) out.set(name, m[2]);
  }
  return out;
}

function tryMkdir(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

/** The cgroups directly under a cgroup. */
function subgroups(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}

const write = (file: string, value: string) => fs.writeFileSync(file, value);
const read = (file: string) => fs.readFileSync(file, 'utf8');

export class Isolator implements TaskIsolator {
  readonly name = 'cgroups';

  private constructor(
    readonly mode: IsolationMode,
    /** Per controller, the directory under which task cgroups are created. */
    private readonly bases: Partial<Record<Controller, string>>,
  ) {}

  /** No cgroups: process groups and polling only. */
  static posix(): Isolator {
    return new Isolator('posix', {});
  }

  get controllers(): Controller[] {
    return CONTROLLERS.filter((c) => this.bases[c] !== undefined);
  }

  /** The isolation this process may use: cgroups v1, else v2, else posix. `root` is /sys/fs/cgroup (tests may point elsewhere). */
  /** Its isolators by Mesos's names (posix/cpu and posix/mem without cgroups). */
  get isolatorNames(): string[] {
    return this.mode === 'posix'
      ? ['posix/cpu', 'posix/mem']
      : this.controllers.map((c) => (c === 'memory' ? 'cgroups/mem' : `cgroups/${c}`));
  }

  static detect(root = '/sys/fs/cgroup', name = 'arbiter'): Isolator {
    let own: Map<string, string>;
    try {
      own = ownCgroups();
    } catch {
      return new Isolator('posix', {});
    }
    const v1: Partial<Record<Controller, string>> = {};
    for (const c of CONTROLLERS) {
      const mount = path.join(root, c);
      const mine = own.get(c);
      if (mine === undefined || !fs.existsSync(path.join(mount, 'cgroup.procs'))) continue;
      const base = path.join(mount, mine, name);
      if (tryMkdir(base)) v1[c] = base;
    }
    if (v1.memory) return new Isolator('cgroups-v1', v1);
    const unified = own.get('');
    if (unified !== undefined && fs.existsSync(path.join(root, 'cgroup.controllers'))) {
      try {
        const available = read(path.join(root, 'cgroup.controllers')).split(/\s+/);
        // Tasks' cgroups go in a subtree of their own at the top (a cgroup with processes may not delegate controllers).
        const base = path.join(root, name);
        const wanted = CONTROLLERS.filter((c) => available.includes(c));
        if (wanted.includes('memory') && tryMkdir(base)) {
          // Each level down to the base hands the controllers on.
          for (let at = root; ; at = path.join(at, path.relative(at, base).split(path.sep)[0])) {
            write(path.join(at, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
            if (at === base) break;
          }
          return new Isolator('cgroups-v2', Object.fromEntries(wanted.map((c) => [c, base])));
        }
      } catch {
        // Not delegated to us: posix below.
      }
    }
    return new Isolator('posix', {});
  }

  prepare(c: Container): void {
    c.cgroup = this.create(c.name, { memBytes: c.limits.memBytes, cpus: c.limits.cpus, pids: c.limits.pids });
  }

  /** New limits for a container's cgroup (rewritten in place). */
  update(c: Container, limits: ContainerLimits): void {
    if (c.cgroup) this.create(c.name, { memBytes: limits.memBytes, cpus: limits.cpus, pids: limits.pids });
  }

  isolate(c: Container, pid: number): void {
    if (c.cgroup) this.join(c.cgroup, pid);
  }

  /** The kernel killed a process of the task at its memory limit (setsid or not): the whole task ends. */
  watch(c: Container): Limitation | undefined {
    return c.cgroup?.dirs.memory && this.oomKilled(c.cgroup) ? kernelMemoryLimitation(c.limits.memBytes) : undefined;
  }

  cleanup(c: Container): boolean {
    if (!c.cgroup) return true;
    this.signal(c.cgroup, 'SIGKILL');
    return this.remove(c.cgroup);
  }

  /** A cgroup for a task with its limits set, or undefined under posix. */
  create(id: string, limits: Limits): TaskCgroup | undefined {
    if (this.mode === 'posix') return undefined;
    const dirs: TaskCgroup['dirs'] = {};
    for (const c of this.controllers) {
      const base = this.bases[c];
      if (base === undefined) continue;
      const dir = path.join(base, id);
      fs.mkdirSync(dir, { recursive: true });
      dirs[c] = dir;
    }
    const cg = { dirs };
    const mem = dirs.memory;
    if (mem && limits.memBytes) {
      if (this.mode === 'cgroups-v1') {
        const limit = path.join(mem, 'memory.limit_in_bytes');
        const memsw = path.join(mem, 'memory.memsw.limit_in_bytes');
        const withSwap = fs.existsSync(memsw);
        // The kernel keeps memory+swap at or above memory: raising (an executor's container
        // grown for a task) moves memsw first, lowering moves the memory limit first.
        const raising = withSwap && limits.memBytes > Number(read(limit));
        if (raising) write(memsw, String(limits.memBytes));
        write(limit, String(limits.memBytes));
        // No swapping around the limit.
        if (fs.existsSync(path.join(mem, 'memory.swappiness'))) write(path.join(mem, 'memory.swappiness'), '0');
        if (withSwap && !raising) write(memsw, String(limits.memBytes));
      } else {
        write(path.join(mem, 'memory.max'), String(limits.memBytes));
        if (fs.existsSync(path.join(mem, 'memory.swap.max'))) write(path.join(mem, 'memory.swap.max'), '0');
      }
    }
    const cpu = dirs.cpu;
    if (cpu && limits.cpus) {
      const quota = Math.max(MIN_QUOTA_US, Math.round(limits.cpus * CFS_PERIOD_US));
      if (this.mode === 'cgroups-v1') {
        write(path.join(cpu, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
        write(path.join(cpu, 'cpu.cfs_quota_us'), String(quota));
      } else write(path.join(cpu, 'cpu.max'), `${quota} ${CFS_PERIOD_US}`);
    }
    const pids = dirs.pids;
    if (pids) write(path.join(pids, 'pids.max'), String(limits.pids));
    return cg;
  }

  /** Moves a process (and so everything it starts later) into the task's cgroup. */
  join(cg: TaskCgroup, pid: number): void {
    for (const dir of new Set(Object.values(cg.dirs))) write(path.join(dir, 'cgroup.procs'), String(pid));
  }

  /** The processes in the task's cgroup, and in the cgroups under it (an image task's container, see ../runtime/runc.ts). */
  pids(cg: TaskCgroup): number[] {
    const dir = cg.dirs.memory ?? cg.dirs.pids ?? cg.dirs.cpu;
    if (!dir) return [];
    return [dir, ...subgroups(dir)].flatMap((d) => {
      try {
        return read(path.join(d, 'cgroup.procs'))
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map(Number);
      } catch {
        return [];
      }
    });
  }

  /** Signals every process in the task's cgroup. */
  signal(cg: TaskCgroup, signal: NodeJS.Signals): void {
    for (const pid of this.pids(cg)) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone already.
      }
    }
  }

  /** Whether the kernel killed a process of the task for going over its memory limit. */
  oomKilled(cg: TaskCgroup): boolean {
    const mem = cg.dirs.memory;
    if (!mem) return false;
    // cgroups v1 counts a kill in the victim's own cgroup only: the container's, under the task's.
    return [mem, ...subgroups(mem)].some((dir) => this.oomKilledIn(dir));
  }

  private oomKilledIn(mem: string): boolean {
    try {
      const file = this.mode === 'cgroups-v1' ? 'memory.oom_control' : 'memory.events';
      const m = /^oom_kill (\d+)$/m.exec(read(path.join(mem, file)));
      if (m) return Number(m[1]) > 0;
      // Older v1 kernels report no oom_kill count: the limit was hit and something died.
      return this.mode === 'cgroups-v1' && Number(read(path.join(mem, 'memory.failcnt'))) > 0;
    } catch {
      return false;
    }
  }

  /** CPU time the task has been throttled for (CFS periods throttled), for tests and metrics. */
  throttledPeriods(cg: TaskCgroup): number {
    const cpu = cg.dirs.cpu;
    if (!cpu) return 0;
    try {
      return Number(/^nr_throttled (\d+)$/m.exec(read(path.join(cpu, 'cpu.stat')))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /**
   * Task cgroups left behind (by an agent that was killed, say) other than `keep`: their
   * processes are killed and the cgroups removed. Runs when the agent starts.
   */
  removeStale(keep: TaskCgroup[]): number {
    const kept = new Set(keep.flatMap((cg) => Object.values(cg.dirs)));
    let removed = 0;
    for (const base of new Set(Object.values(this.bases))) {
      let entries: string[];
      try {
        entries = fs
          .readdirSync(base, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => e.name);
      } catch {
        continue;
      }
      for (const name of entries) {
        const dir = path.join(base, name);
        if (kept.has(dir)) continue;
        const cg: TaskCgroup = { dirs: Object.fromEntries(this.controllers.map((c) => [c, dir])) };
        this.signal(cg, 'SIGKILL');
        try {
          for (const sub of subgroups(dir)) fs.rmdirSync(sub);
          fs.rmdirSync(dir);
          removed++;
        } catch {
          // Processes still exiting: removed at the next start.
        }
      }
    }
    return removed;
  }

  /** Removes this agent's own cgroup folder when no task cgroup is left in it (best effort). */
  removeBase(): void {
    for (const base of new Set(Object.values(this.bases))) {
      try {
        fs.rmdirSync(base);
      } catch {
        // Task cgroups still there (running tasks, left to a restarted agent).
      }
    }
  }

  /** Removes the task's cgroup once its processes are gone (false while some remain). */
  remove(cg: TaskCgroup): boolean {
    let done = true;
    for (const dir of new Set(Object.values(cg.dirs))) {
      try {
        for (const sub of subgroups(dir)) fs.rmdirSync(sub);
        fs.rmdirSync(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') done = false;
      }
    }
    return done;
  }
}
