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
import type { AgentCapabilities, TaskSpec } from '@arbiter/contracts';
import { Isolator, type TaskCgroup } from './isolators/cgroups';
import { CompletionDeadline } from './isolators/deadline';
import { DiskUsage } from './isolators/disk';
import { type GpuOptions, NvidiaGpus } from './isolators/gpus';
import type { Container, Limitation, TaskIsolator } from './isolators/isolator';
import { MemoryPolling } from './isolators/memory';
import { PortsIsolator, type PortsOptions } from './isolators/ports';
import { DYNAMIC_UID_BASE, dynamicUser, DynamicUsers, NoDynamicUserLeft } from './dynamic-users';
import { launch, type NamespaceTools } from './launcher';
import { Sandboxes } from './sandbox';
import { detectNamespaceTools } from './tools';
import { type OsUser, TaskUsers } from './users';

export interface ContainerizerOptions {
  /**
   * The OS user tasks run as when neither their spec nor their framework names one (default:
   * as root, the framework's own dynamic user, see dynamic-users.ts; else the agent's user).
   * Setting it makes those tasks share that user.
   */
  taskUser?: string;
  /** Whether tasks may run as root (uid 0), when they name it (default: no). */
  allowRootTasks?: boolean;
  /** Private /tmp through a mount namespace when the agent may make one (default: detected; false: TMPDIR only). */
  privateMounts?: boolean;
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
  /** The network/ports isolator's settings (see isolators/ports.ts; watchIntervalMs 0: not used). */
  ports?: PortsOptions;
  /** The GPUs handed out to containers by the gpu/nvidia isolator (see isolators/gpus.ts; none: not used). */
  gpus?: GpuOptions;
}

const DEFAULT_PIDS_LIMIT = 1024;

export class Containerizer {
  /** The cgroups isolator (posix when the agent may create none). */
  readonly cgroups: Isolator;
  /** Disk use is measured on its own schedule (see TaskRunner.checkDisk). */
  readonly disk = new DiskUsage();
  /** The isolators asked at every step, and on every memory poll. */
  private readonly isolators: TaskIsolator[];
  /** Containers' ports, when watched. */
  readonly ports?: PortsIsolator;
  /** Containers' GPUs, when the agent hands some out. */
  readonly gpus?: NvidiaGpus;
  private readonly users = new TaskUsers();
  /** Who the agent runs as (tasks can switch users only when it is root). */
  private readonly self = process.getuid?.() ?? 0;
  /** The configured task user, or (as root, none configured) undefined: each framework's dynamic user. */
  private readonly defaultUser?: string;
  private readonly dynamic: DynamicUsers;
  private readonly allowRoot: boolean;
  /** The tools of private mounts, when tasks get them (else TMPDIR in the sandbox, and `privateTmpProblem` says why). */
  readonly namespace?: NamespaceTools;
  readonly privateTmpProblem?: string;
  readonly pidsLimit: number;
  readonly sandboxes: Sandboxes;

  constructor(workDir: string, options: ContainerizerOptions = {}) {
    // Task cgroups under arbiter/<this work directory>: agents on one machine keep to their own.
    const self = crypto.createHash('sha256').update(path.resolve(workDir)).digest('hex').slice(0, 12);
    this.cgroups = options.isolator ?? Isolator.detect('/sys/fs/cgroup', path.join('arbiter', self));
    if (options.gpus?.gpus.length) this.gpus = new NvidiaGpus(options.gpus, workDir, path.join('arbiter', self));
    if (options.ports?.watchIntervalMs !== 0)
      this.ports = new PortsIsolator(options.ports, (c) =>
        c.cgroup && Object.keys(c.cgroup.dirs).length > 0 ? this.cgroups.pids(c.cgroup) : undefined,
      );
    // GPUs first (a launch with too few free fails before anything else is made); ports last (a
    // port only reported never hides another isolator's limit).
    const all: Array<TaskIsolator | undefined> = [this.gpus, this.cgroups, new MemoryPolling(), new CompletionDeadline(), this.ports];
    this.isolators = all.filter((i): i is TaskIsolator => i !== undefined);
    this.pidsLimit = options.pidsLimit ?? DEFAULT_PIDS_LIMIT;
    this.defaultUser = options.taskUser ?? (this.self === 0 ? undefined : (process.env.USER ?? String(this.self)));
    this.dynamic = new DynamicUsers(path.join(workDir, 'task-users.json'));
    this.allowRoot = options.allowRootTasks ?? false;
    const tools = options.privateMounts === false ? { problem: 'private mounts are turned off' } : detectNamespaceTools(this.self === 0);
    if ('tools' in tools) this.namespace = tools.tools;
    else this.privateTmpProblem = tools.problem;
    // Where sandboxes go is judged for the default user: a dynamic one passes as "others".
    const user = this.self !== 0 ? null : this.defaultUser ? this.users.lookup(this.defaultUser) : dynamicUser(DYNAMIC_UID_BASE);
    const sandboxDir = options.sandboxDir ?? workDir;
    if (sandboxDir !== workDir) {
      fs.mkdirSync(sandboxDir, { recursive: true });
      fs.chmodSync(sandboxDir, 0o711);
    }
    this.sandboxes = new Sandboxes(sandboxDir, user, options.fallbackSandboxRoot ?? '/var/lib/arbiter');
  }

  /**
   * What the agent reports of its ports and GPU isolation, for its capabilities: the isolators
   * (`network/ports`, `gpu/nvidia`) beside the others, its GPUs, and why they are confined by
   * the environment alone, when they are.
   */
  portsAndGpus(): Required<Pick<AgentCapabilities, 'isolators' | 'gpus'>> & Pick<AgentCapabilities, 'gpusProblem'> {
    return {
      isolators: [...(this.ports ? ['network/ports'] : []), ...(this.gpus ? ['gpu/nvidia'] : [])],
      gpus: this.gpus?.reported ?? [],
      ...(this.gpus?.problem ? { gpusProblem: this.gpus.problem } : {}),
    };
  }

  /** The OS user tasks run as when neither they nor their framework name one (`dynamic`: each framework's own). */
  get taskUser(): string {
    return this.defaultUser ?? 'dynamic';
  }

  /**
   * The OS user a framework's task runs as (`name`: its spec's, else its framework's), or why it
   * may not: none named, or `nobody` (which every tenant could name), is the framework's dynamic
   * user; root only where allowed; an agent that is not root runs tasks as itself only.
   */
  userOf(frameworkId: string, name: string | undefined): { user: OsUser } | { problem: string; reason: string } {
    const invalid = (problem: string) => ({ problem, reason: 'REASON_TASK_USER_INVALID' });
    const wanted = name ?? this.defaultUser;
    if (this.self === 0 && (wanted === undefined || wanted === 'nobody')) {
      try {
        return { user: this.dynamic.of(frameworkId) };
      } catch (e) {
        if (e instanceof NoDynamicUserLeft) return invalid(e.message);
        // It could not be recorded (a full work directory, say).
        return { problem: `could not prepare the task: ${(e as Error).message}`, reason: 'REASON_COMMAND_EXECUTOR_FAILED' };
      }
    }
    if (wanted === undefined) return invalid('no task user');
    const user = this.users.lookup(wanted);
    if (!user) return invalid(`no OS user '${wanted}' on this machine`);
    if (this.self !== 0 && user.uid !== this.self) return invalid(`the agent does not run as root and so cannot run tasks as '${wanted}'`);
    if (user.uid === 0 && this.self === 0 && !this.allowRoot)
      return invalid(`tasks may not run as '${wanted}' (uid 0) on this agent (see --allow-root-tasks)`);
    return { user };
  }

  /** The sandbox (with the task's private /tmp), then every isolator's hold (its cgroup): throws when one cannot be made. */
  prepare(c: Container, user: OsUser): void {
    this.sandboxes.prepare(c.sandbox, user);
    this.sandboxes.prepareTmp(c.sandbox, user);
    for (const i of this.isolators) i.prepare?.(c);
  }

  /** Forks the task (see launcher.ts); its isolators hold it before it runs. */
  launch(c: Container, user: OsUser, frameworkId: string, spec: TaskSpec): { child: ChildProcess; isolationError?: Error } {
    const req = { frameworkId, spec, sandbox: c.sandbox, user, switchUser: this.self === 0, namespace: this.namespace, env: c.env };
    return launch(req, (pid) => {
      for (const i of this.isolators) i.isolate?.(c, pid);
    });
  }

  /** The container's limits changed (an executor took or ended a task): its isolators follow. */
  update(c: Container): void {
    for (const i of this.isolators) i.update?.(c, c.limits);
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

  /** The container's task has ended: what it left in its private /tmp and /dev/shm goes, and its GPUs are free. */
  ended(c: Container): void {
    this.sandboxes.removeTmp(c.sandbox);
    this.gpus?.release(c);
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
    this.gpus?.removeBase();
  }
}
