/**
 * What every isolator is (Mesos's `Isolator`): one module per resource or concern, each called
 * by the containerizer at the same points of a container's life. An isolator never talks to the
 * control plane and never forks (the launcher does).
 */
import type { TaskCgroup } from './cgroups';
import type { PortRange } from './ports';

/** A task's limits, from its resources. */
export interface ContainerLimits {
  memBytes?: number;
  cpus?: number;
  diskBytes?: number;
  pids: number;
  /** Seconds the task may run (its max completion time). */
  completionSeconds?: number;
  /** The ports it may listen on (its `ports` resources; none: it may listen on no watched port). */
  ports?: PortRange[];
  /** Whole GPUs it holds (its `gpus`). */
  gpus?: number;
}

/** One task's container as its isolators see it (the executors checkpoint what must survive a restart). */
export interface Container {
  /** A name safe for files and cgroups, unique on the agent. */
  name: string;
  sandbox: string;
  limits: ContainerLimits;
  /** Its first process (the leader of its process group), once launched. */
  pid?: number;
  cgroup?: TaskCgroup;
  /** What its isolators add to its environment (over the spec's): the GPUs it may use, say. */
  env?: Record<string, string>;
}

/** Why a container must end: a limit it went over. */
export interface Limitation {
  reason: string;
  message: string;
  /** Only to be told (in a status update and the log): the container keeps running (network/ports not enforced). */
  reportOnly?: boolean;
}

export interface TaskIsolator {
  readonly name: string;
  /** Before launch: create what the container will be held in. */
  prepare?(c: Container): void;
  /** Right after the fork, before the task runs anything: hold its first process. */
  isolate?(c: Container, pid: number): void;
  /** While it runs: a limit it went over, if any. */
  watch?(c: Container): Limitation | undefined | Promise<Limitation | undefined>;
  /** Its limits changed. */
  update?(c: Container, limits: ContainerLimits): void;
  /** After it ended: release what prepare created (false while something is still in use). */
  cleanup?(c: Container): boolean;
}

export const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
