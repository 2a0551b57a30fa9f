/**
 * The agent:isolator point: a module's isolator (Mesos's Isolator module), called for every
 * task's container of the command executor beside the agent's own isolators, at the same steps
 * (../../apps/agent/src/containerizer/isolators/isolator.ts):
 *
 * - `prepare(container)` before the task starts, `isolate(container, pid)` right after its fork,
 *   `update(container)` when its limits change, `cleanup(container)` once it ended: synchronous
 *   (they run on the launch's path, as the built-in ones do); a throw is counted and logged, and
 *   the container goes on as if the isolator had done nothing.
 * - `watch(container)` every second while the task runs (a watch still under way is not
 *   started twice); it may be async (time-limited by `hookTimeoutMs`) and answers nothing or a
 *   limitation: the task is killed and ends TASK_FAILED with the limitation's reason (a
 *   `REASON_...` name, default REASON_CONTAINER_LIMITATION) and message, as for the agent's own
 *   limits (memory, disk). A failing watch is counted and the task runs on.
 */

/** A task's container as an isolator module sees it. */
export interface ModuleContainer {
  /** A name safe for files, unique on the agent. */
  name: string;
  /** Its sandbox directory. */
  sandbox: string;
  /** Its first process, once started. */
  pid?: number;
  /** Its limits from its resources (bytes, cores, seconds). */
  limits: Readonly<{ memBytes?: number; cpus?: number; diskBytes?: number; pids: number; gpus?: number }>;
}

/** Why a container must end. */
export interface ModuleLimitation {
  /** A Mesos reason name (`REASON_...`); default REASON_CONTAINER_LIMITATION. */
  reason?: string;
  message: string;
}

export interface ModuleIsolator {
  prepare?(container: ModuleContainer): void;
  isolate?(container: ModuleContainer, pid: number): void;
  update?(container: ModuleContainer): void;
  watch?(container: ModuleContainer): ModuleLimitation | undefined | Promise<ModuleLimitation | undefined>;
  cleanup?(container: ModuleContainer): void;
}
