/**
 * The containerizer: one container per task, plain processes (Mesos's `MesosContainerizer`).
 * It prepares a container (its sandbox, then each isolator), launches it through the launcher,
 * asks its isolators whether it went over a limit, signals it, and destroys it. It knows
 * nothing of task states or of the control plane: the executors drive it.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentCapabilities, ContainerSpec, TaskSpec } from '@arbiter/contracts';
import { Isolator, type TaskCgroup } from './isolators/cgroups';
import { CompletionDeadline } from './isolators/deadline';
import { DiskUsage } from './isolators/disk';
import { type GpuOptions, NvidiaGpus } from './isolators/gpus';
import type { Container, Limitation, TaskIsolator } from './isolators/isolator';
import { MemoryPolling } from './isolators/memory';
import { PortsIsolator, type PortsOptions } from './isolators/ports';
import { DYNAMIC_UID_BASE, dynamicUser, DynamicUsers, NoDynamicUserLeft } from './dynamic-users';
import { type Launched, launch, type NamespaceTools } from './launcher';
import { ImageError, type ProvisionedImage, type Provisioner } from './provisioner/image';
import { formatReference, parseReference } from './provisioner/reference';
import { launchImage } from './runtime/image-launch';
import type { BindMount } from './runtime/oci-spec';
import { detectRuntime, Runc } from './runtime/runc';
import { resolveVolumes } from './runtime/volumes';
import { Sandboxes } from './sandbox';
import { ModuleHooks, type ModuleHooksOptions } from './module-hooks';
import { PersistentVolumes } from './persistent-volumes';
import { detectNamespaceTools, detectPidNamespace } from './tools';
import { type OsUser, TaskUsers } from './users';

export interface ContainerizerOptions {
  /** The modules' start and removal hooks (module-hooks.ts); none when unset. */
  hooks?: ModuleHooksOptions;
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
  /**
   * The isolators of plain tasks, by Mesos's names (Mesos's `--isolation`): `filesystem/linux`
   * (a private /tmp and /dev/shm, volumes), `namespaces/pid` (a task sees only its own
   * processes). Default: `filesystem/linux` where this machine allows it; `namespaces/pid` is
   * named explicitly, as in Mesos (a task in one no longer sees the machine's processes).
   */
  isolation?: string[];
  /** Host paths under which HOST_PATH volumes may be mounted (default: none). */
  allowedHostPaths?: string[];
  /** Provisions images (none: image tasks fail with REASON_CONTAINER_LAUNCH_FAILED). */
  provisioner?: Provisioner;
  /** The image tools found (their versions, for the capabilities) or why they are missing. */
  imageTools?: { versions: Record<string, string>; problem?: string };
  /** Whether image tasks may run (default: when runc is installed and the agent is root). */
  images?: boolean;
  /** How a container's writable root filesystem is made (default: overlay where the kernel has it, else a copy). */
  rootfs?: 'overlay' | 'copy';
}

/** The plain-task isolators `--isolation` may name. */
export const OPTIONAL_ISOLATORS = ['filesystem/linux', 'namespaces/pid'] as const;
const DEFAULT_ISOLATION: readonly string[] = ['filesystem/linux'];

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
  /** The modules' hooks around containers and executors. */
  readonly hooks: ModuleHooks;
  /** Whether plain tasks get a PID namespace of their own (namespaces/pid). */
  readonly pidNamespace: boolean;
  /** The OCI runtime of image tasks, when images can run here (else `imagesProblem` says why). */
  readonly runtime?: Runc;
  readonly imagesProblem?: string;
  private readonly provisioner?: Provisioner;
  private readonly imageTools?: { versions: Record<string, string>; problem?: string };
  /** Recovered containers whose image is being held again (holdImage). */
  private readonly holding = new Set<string>();
  private readonly allowedHostPaths: string[];
  /** The images of the containers running them (released when they end). */
  private readonly images = new Map<string, ProvisionedImage>();
  /** Plain tasks' volumes, between prepare and launch. */
  private readonly binds = new Map<string, BindMount[]>();
  /** Persistent volumes on this agent (created and destroyed by the control plane). */
  readonly volumes: PersistentVolumes;

  constructor(workDir: string, options: ContainerizerOptions = {}) {
    this.volumes = new PersistentVolumes(workDir);
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
    this.hooks = new ModuleHooks(options.hooks);
    const all = [this.gpus, this.cgroups, new MemoryPolling(), new CompletionDeadline(), this.ports, this.hooks.isolator];
    this.isolators = all.filter((i): i is TaskIsolator => i !== undefined);
    this.pidsLimit = options.pidsLimit ?? DEFAULT_PIDS_LIMIT;
    this.defaultUser = options.taskUser ?? (this.self === 0 ? undefined : (process.env.USER ?? String(this.self)));
    this.dynamic = new DynamicUsers(path.join(workDir, 'task-users.json'));
    this.allowRoot = options.allowRootTasks ?? false;
    const wanted = (name: (typeof OPTIONAL_ISOLATORS)[number]) => (options.isolation ?? DEFAULT_ISOLATION).includes(name);
    const tools =
      options.privateMounts === false || !wanted('filesystem/linux')
        ? { problem: 'private mounts are turned off' }
        : detectNamespaceTools(this.self === 0);
    if ('tools' in tools) this.namespace = tools.tools;
    else this.privateTmpProblem = tools.problem;
    this.pidNamespace = !!this.namespace && wanted('namespaces/pid') && detectPidNamespace(this.namespace);
    this.allowedHostPaths = options.allowedHostPaths ?? [];
    this.provisioner = options.provisioner;
    this.imageTools = options.imageTools;
    const runtime = options.images === false ? { problem: 'images are turned off' } : detectRuntime(this.self === 0);
    if ('info' in runtime) this.runtime = new Runc(runtime.info, workDir, options.rootfs);
    else this.imagesProblem = runtime.problem;
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

  /** The task's user, its sandbox made (its URIs are fetched while its image is provisioned); none when either cannot be had. */
  sandboxFor(c: Container, frameworkId: string, name: string | undefined): OsUser | undefined {
    const found = this.userOf(frameworkId, name);
    try {
      if ('user' in found) this.sandboxes.prepare(c.sandbox, found.user);
      return 'user' in found ? found.user : undefined;
    } catch {
      return undefined; // its launch says why
    }
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

  /**
   * Provisions an image task's image (kept until the container ends) and says which it is;
   * undefined for a plain task. Rejects with an ImageError worded for the task's status.
   */
  async provision(c: Container, container: ContainerSpec | undefined): Promise<{ reference: string; digest: string } | undefined> {
    const image = container?.image;
    if (!image) return undefined;
    if (!this.runtime) throw new ImageError(`this agent cannot run container images: ${this.imagesProblem}`);
    if (!this.provisioner) throw new ImageError('this agent cannot run container images: it has no image provisioner');
    const provisioned = await this.provisioner.provision(image.name, { forcePull: image.forcePull });
    this.images.set(c.name, provisioned);
    try {
      await this.runtime.makeRootfs(c.name, provisioned.rootfs);
    } catch (e) {
      this.ended(c);
      throw new ImageError((e as Error).message);
    }
    return this.imageOf(c);
  }

  /**
   * After an agent restart: a recovered container's image, held again (by its digest: a store
   * hit) so that it is not collected while the container runs on it.
   */
  async holdImage(c: Container, image: { reference: string; digest: string }): Promise<void> {
    if (!this.provisioner || this.images.has(c.name)) return;
    const pinned = formatReference({ ...parseReference(image.reference), tag: undefined, digest: image.digest });
    this.holding.add(c.name);
    const held = await this.provisioner.provision(pinned);
    // It ended meanwhile (see ended): nothing holds the image any more.
    if (!this.holding.delete(c.name)) held.release();
    else this.images.set(c.name, held);
  }

  /** The image a container runs (reference and digest), if it runs one. */
  imageOf(c: Container): { reference: string; digest: string } | undefined {
    const image = this.images.get(c.name);
    return image && { reference: image.reference, digest: image.digest };
  }

  /**
   * The sandbox (with the task's private /tmp), its volumes (checked: a VolumeError before
   * anything else is made), then every isolator's hold (its cgroup): throws when one cannot be made.
   */
  prepare(c: Container, user: OsUser, spec?: Pick<TaskSpec, 'container'> & { resources?: TaskSpec['resources'] }): void {
    this.sandboxes.prepare(c.sandbox, user);
    const volumes = spec?.container?.volumes ?? [];
    const image = this.images.has(c.name);
    if (volumes.length && !image && !this.namespace)
      throw new ImageError(`this agent cannot mount volumes for tasks without an image: ${this.privateTmpProblem}`);
    const ctx = { allowedHostPaths: this.allowedHostPaths, sandbox: c.sandbox, image, owner: user };
    const how = { sandbox: c.sandbox, image, mounts: !!this.namespace, ...(this.self === 0 ? { owner: user } : {}) };
    this.binds.set(c.name, [...resolveVolumes(volumes, ctx), ...this.volumes.use(c.name, spec?.resources ?? [], how)]);
    this.sandboxes.prepareTmp(c.sandbox, user);
    for (const i of this.isolators) i.prepare?.(c);
  }

  /** Forks the task (see launcher.ts), in its image's container when it has one; its isolators hold it before it runs. */
  launch(c: Container, user: OsUser, frameworkId: string, spec: TaskSpec): Launched {
    const binds = this.binds.get(c.name) ?? [];
    this.binds.delete(c.name);
    const image = this.images.get(c.name);
    const base = { frameworkId, spec, sandbox: c.sandbox, user, switchUser: this.self === 0, namespace: this.namespace, env: c.env };
    const isolate = (pid: number) => {
      for (const i of this.isolators) i.isolate?.(c, pid);
    };
    if (!image || !this.runtime) return launch({ ...base, pidNamespace: this.pidNamespace, binds }, isolate);
    return launchImage(this.runtime, base, { name: c.name, image, binds, gpus: this.gpus?.heldBy(c) }, isolate);
  }

  /**
   * A nested container (a task group's task in its own image, provisioned first): its first
   * process joins its parent's cgroups (the group's limits hold it), and runc gives it its own
   * root filesystem and mount namespace with its sandbox and volumes (SANDBOX_PATH PARENT: the
   * parent's sandbox), and a PID namespace of its own unless `pidNamespace` names one to join.
   */
  launchNested(c: Container, parent: Container, user: OsUser, frameworkId: string, spec: TaskSpec, pidNamespace?: string): Launched {
    const image = this.images.get(c.name);
    if (!image || !this.runtime) throw new ImageError('a nested container runs an image, provisioned first');
    for (const dir of [path.dirname(c.sandbox), c.sandbox]) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o750 });
      fs.chownSync(dir, user.uid, user.gid);
    }
    const ctx = { allowedHostPaths: this.allowedHostPaths, sandbox: c.sandbox, parentSandbox: parent.sandbox, image: true, owner: user };
    const binds = resolveVolumes(spec.container?.volumes ?? [], ctx);
    const req = { frameworkId, spec, sandbox: c.sandbox, user, switchUser: this.self === 0 };
    return launchImage(this.runtime, req, { name: c.name, image, binds, pidNamespace }, (pid) => this.cgroups.isolate(parent, pid));
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

  /** Why the container ended, once its first process has exited: a kernel OOM kill, or a runtime that could not start it. */
  endLimitation(c: Container): Limitation | undefined {
    const failure = this.runtime?.launchFailure(c.name);
    const failed = failure ? { reason: 'REASON_CONTAINER_LAUNCH_FAILED', message: `could not start the container: ${failure}` } : undefined;
    return this.cgroups.watch(c) ?? failed;
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
    this.binds.delete(c.name);
    this.volumes.release(c.name);
    this.holding.delete(c.name);
    const image = this.images.get(c.name);
    this.images.delete(c.name);
    if (!this.runtime || (!image && !this.runtime.bundles().includes(c.name))) return;
    void this.runtime.destroy(c.name).finally(() => image?.release());
  }

  /** Once every process of the container is gone, what its isolators made goes too. */
  destroy(c: Container, attempts = 20): void {
    const done = this.isolators.every((i) => i.cleanup?.(c) ?? true);
    if (done || attempts <= 0) return;
    setTimeout(() => this.destroy(c, attempts - 1), 50).unref();
  }

  /** After an agent restart: cgroups of containers it no longer runs (it was killed before it could remove them) go. */
  recover(live: TaskCgroup[], liveContainers: string[] = []): void {
    this.cgroups.removeStale(live);
    // Image containers that ended while the agent was away: their bundles, mounts and runc state go.
    for (const name of this.runtime?.bundles() ?? []) if (!liveContainers.includes(name)) void this.runtime?.destroy(name);
  }

  /** What the agent can contain tasks with (Mesos's names), for its registration. */
  capabilities(diskChecked: boolean): AgentCapabilities {
    const isolators = [
      ...this.cgroups.isolatorNames,
      ...(diskChecked ? ['disk/du'] : []),
      ...(this.namespace || this.runtime ? ['filesystem/linux', 'volume/host_path', 'volume/sandbox_path'] : []),
      ...(this.pidNamespace || this.runtime ? ['namespaces/pid'] : []),
      ...(this.runtime ? ['docker/runtime'] : []),
    ];
    const tools = this.imageTools;
    const problem = this.imagesProblem ?? tools?.problem ?? (this.provisioner ? undefined : 'this agent has no image provisioner');
    const { isolators: more, gpus, gpusProblem } = this.portsAndGpus();
    return {
      containerizers: ['mesos'],
      isolators: [...isolators, ...more],
      ...(this.runtime ? { runtime: { name: 'runc', version: this.runtime.info.version } } : {}),
      tools: { ...tools?.versions, ...(this.runtime ? { runc: this.runtime.info.version } : {}) },
      gpus,
      ...(gpusProblem ? { gpusProblem } : {}),
      ...(problem ? { imagesProblem: problem } : {}),
    };
  }

  close(): void {
    this.cgroups.removeBase();
    this.gpus?.removeBase();
  }
}
