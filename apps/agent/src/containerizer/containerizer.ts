/**
 * The containerizer: one container per task, plain processes (Mesos's `MesosContainerizer`).
 * It prepares a container (its sandbox, then each isolator), launches it through the launcher,
 * asks its isolators whether it went over a limit, signals it, and destroys it. It knows
 * nothing of task states or of the control plane: the executors drive it.
 */
import type { ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskSpec } from '@arbiter/contracts';
import { Isolator, type TaskCgroup } from './isolators/cgroups';
import { DiskUsage } from './isolators/disk';
import type { Container, Limitation, TaskIsolator } from './isolators/isolator';
import { MemoryPolling } from './isolators/memory';
import { launch } from './launcher';
import { Sandboxes } from './sandbox';
import { type OsUser, TaskUsers } from './users';

export interface ContainerizerOptions {
  /** The OS user tasks run as when their spec names none (default: `nobody` as root, else the agent's user). */
  taskUser?: string;
  /** pids.max of each task's cgroup. */
  pidsLimit?: number;
  /** The isolation to use (default: detected). */
  isolator?: Isolator;
  /**
   * Where sandboxes go (default: the work directory). On a filesystem of its own, tasks cannot
   * fill the one the agent keeps its journal and checkpoints on.
   */
  sandboxDir?: string;
  /** Where sandboxes go when the task user cannot reach the sandbox directory (default /var/lib/arbiter). */
  fallbackSandboxRoot?: string;
}

const DEFAULT_PIDS_LIMIT = 1024;

export class Containerizer {
  /** The cgroups isolator (posix when the agent may create none). */
  readonly cgroups: Isolator;
  /** Disk use is measured on its own schedule (see TaskRunner.checkDisk). */
  readonly disk = new DiskUsage();
  /** The isolators asked at every step, and on every memory poll. */
  private readonly isolators: TaskIsolator[];
  private readonly users = new TaskUsers();
  /** Who the agent runs as (tasks can switch users only when it is root). */
  private readonly self = process.getuid?.() ?? 0;
  readonly taskUser: string;
  readonly pidsLimit: number;
  readonly sandboxes: Sandboxes;

  constructor(workDir: string, options: ContainerizerOptions = {}) {
    // Task cgroups under arbiter/<this work directory>: agents on one machine keep to their own.
    const self = crypto.createHash('sha256').update(path.resolve(workDir)).digest('hex').slice(0, 12);
    this.cgroups = options.isolator ?? Isolator.detect('/sys/fs/cgroup', path.join('arbiter', self));
    this.isolators = [this.cgroups, new MemoryPolling()];
    this.pidsLimit = options.pidsLimit ?? DEFAULT_PIDS_LIMIT;
    this.taskUser = options.taskUser ?? (this.self === 0 ? 'nobody' : (process.env.USER ?? String(this.self)));
    const user = this.self === 0 ? this.users.lookup(this.taskUser) : null;
    const sandboxDir = options.sandboxDir ?? workDir;
    if (sandboxDir !== workDir) {
      fs.mkdirSync(sandboxDir, { recursive: true });
      fs.chmodSync(sandboxDir, 0o711);
    }
    this.sandboxes = new Sandboxes(sandboxDir, user, options.fallbackSandboxRoot ?? '/var/lib/arbiter');
  }

  /** The OS user a task may run as, or why it may not. */
  userOf(name: string): { user: OsUser } | { problem: string } {
    const user = this.users.lookup(name);
    if (!user) return { problem: `no OS user '${name}' on this machine` };
    if (this.self !== 0 && user.uid !== this.self)
      return { problem: `the agent does not run as root and so cannot run tasks as '${name}'` };
    return { user };
  }

  /** The sandbox, then every isolator's hold (its cgroup): throws when one cannot be made. */
  prepare(c: Container, user: OsUser): void {
    this.sandboxes.prepare(c.sandbox, user);
    for (const i of this.isolators) i.prepare?.(c);
  }

  /** Forks the task (see launcher.ts); its isolators hold it before it runs. */
  launch(c: Container, user: OsUser, frameworkId: string, spec: TaskSpec): { child: ChildProcess; isolationError?: Error } {
    return launch({ frameworkId, spec, sandbox: c.sandbox, user, switchUser: this.self === 0 }, (pid) => {
      for (const i of this.isolators) i.isolate?.(c, pid);
    });
  }

  /** A limit the running container went over (memory: the kernel's kill, or polling), if any. */
  limitation(c: Container): Limitation | undefined {
    for (const i of this.isolators) {
      const found = i.watch?.(c);
      if (found && !(found instanceof Promise)) return found;
    }
    return undefined;
  }

  /** Signals the container's process group and, when it has one, every process in its cgroup (what left the group with setsid too). */
  signal(c: Container, signal: NodeJS.Signals): void {
    if (c.cgroup) this.cgroups.signal(c.cgroup, signal);
    if (!c.pid) return;
    try {
      process.kill(-c.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  /** Once every process of the container is gone, what its isolators made goes too. */
  destroy(c: Container, attempts = 20): void {
    const done = this.isolators.every((i) => i.cleanup?.(c) ?? true);
    if (done || attempts <= 0) return;
    setTimeout(() => this.destroy(c, attempts - 1), 50).unref();
  }

  /** After an agent restart: cgroups of containers it no longer runs (it was killed before it could remove them) go. */
  recover(live: TaskCgroup[]): void {
    this.cgroups.removeStale(live);
  }

  close(): void {
    this.cgroups.removeBase();
  }
}
