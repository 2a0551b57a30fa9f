/**
 * Nested containers (Mesos's LAUNCH_NESTED_CONTAINER, WAIT_NESTED_CONTAINER and
 * KILL_NESTED_CONTAINER, api/agent-api.ts): containers an executor launches under its own, each
 * over an image of its own; the default executor runs each task of a group that names an image
 * in one. As in Mesos they live in their executor's cgroups (its limits hold them all, and a
 * kernel OOM kill in one is the executor's memory limitation), share its network (the host's),
 * and have their own root filesystem and mount namespace (runc's), a PID namespace of their own
 * unless they share their executor's, their sandbox under the executor's (`containers/<id>`),
 * and the executor's user. They end with their executor, and are recorded with it: a restarted
 * agent finds them running and answers their waits again.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command, ContainerSpec, TaskSpec } from '@arbiter/contracts';
import type { Containerizer } from '../containerizer/containerizer';
import type { Container } from '../containerizer/isolators/isolator';
import { hiddenName } from '../containerizer/names';
import { processStartTicks } from '../containerizer/launcher';
import type { ExecutorRun, NestedRecord } from './executor-run';
import { endFromRecord, endOf } from './task';

export interface NestedLaunch {
  /** Its id under the executor's container (letters, digits, `.`, `_`, `-`). */
  id: string;
  command?: Command;
  env?: Record<string, string>;
  container: ContainerSpec;
}

/** How a nested container ended (Mesos's WAIT_NESTED_CONTAINER answer). */
interface NestedEnd {
  /** Its wait status (Mesos's `exit_status`): the exit code shifted left 8 bits, or the signal's number. */
  exitStatus?: number;
  /** Why, when it was not its own end: a limitation (REASON_CONTAINER_LIMITATION_MEMORY), a failed launch, its executor's end. */
  reason?: string;
  message: string;
}

/** A refusal, with the status of the agent API's answer. */
export class NestedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Nested {
  run: ExecutorRun;
  container: Container;
  /** Its runtime was started (the wrapper spawned). */
  spawned: boolean;
  /** Killed before it started: it never will. */
  killed?: boolean;
  end?: NestedEnd;
  waiters: Array<(end: NestedEnd) => void>;
}

export class NestedContainers {
  private readonly all = new Map<string, Nested>();
  private closed = false;

  /** `checkpoint`: writes the executor's record (with its nested containers'). */
  constructor(
    private readonly containerizer: Containerizer,
    private readonly checkpoint: (run: ExecutorRun) => void,
  ) {}

  /** Provisions its image and starts it; resolves once its process runs (rejects with a NestedError otherwise). */
  async launch(run: ExecutorRun, l: NestedLaunch): Promise<void> {
    const key = keyOf(run, l.id);
    if (!running(run)) throw new NestedError(409, `executor '${run.spec.executorId}' is not running`);
    if (this.all.has(key)) throw new NestedError(409, `container '${l.id}' exists already under this executor`);
    if (!l.container.image)
      throw new NestedError(400, 'a nested container runs an image (container.mesos.image); a plain task is the executor’s own process');
    const found = this.containerizer.userOf(run.frameworkId, run.spec.user);
    if ('problem' in found) throw new NestedError(400, found.problem);
    const container: Container = {
      name: hiddenName(run.containerId, 'nested', l.id),
      sandbox: path.join(run.container.sandbox, 'containers', l.id),
      limits: run.container.limits,
      cgroup: run.container.cgroup,
    };
    const nested: Nested = { run, container, spawned: false, waiters: [] };
    this.all.set(key, nested);
    try {
      await this.containerizer.provision(container, l.container);
      if (nested.killed || !running(run)) throw new NestedError(409, 'it was killed before it started');
      const spec: TaskSpec = { taskId: l.id, name: l.id, command: l.command, env: l.env, resources: [], container: l.container };
      const share = l.container.linux?.sharePidNamespace && run.container.pid ? `/proc/${run.container.pid}/ns/pid` : undefined;
      const launched = this.containerizer.launchNested(container, run.container, found.user, run.frameworkId, spec, share);
      nested.spawned = true;
      container.pid = launched.child.pid;
      launched.child.once('exit', (code, signal) => this.closed || this.exited(nested, code, signal));
      launched.child.once('spawn', () => this.record(run, l.id, container));
      launched.child.once('error', (e) => this.closed || this.finish(nested, failed(`could not start it: ${e.message}`)));
      if (launched.isolationError) throw new NestedError(500, `could not isolate it: ${launched.isolationError.message}`);
      if (!(await launched.started)) {
        const why = this.containerizer.endLimitation(container)?.message ?? 'runc did not start it';
        throw new NestedError(500, why);
      }
    } catch (e) {
      const err = e instanceof NestedError ? e : new NestedError(400, (e as Error).message);
      if (nested.spawned) void this.kill(run, l.id, 'SIGKILL');
      else this.finish(nested, failed(err.message));
      // A failed launch leaves nothing to wait for (as Mesos's).
      this.all.delete(key);
      throw err;
    }
  }

  /** Resolves once the container has ended (at once when it has). */
  async wait(run: ExecutorRun, id: string): Promise<NestedEnd> {
    const nested = this.get(run, id);
    if (nested.end) return nested.end;
    return new Promise((resolve) => nested.waiters.push(resolve));
  }

  /** Signals every process of the container (before it starts: it never will); an unknown one is a 404. */
  async kill(run: ExecutorRun, id: string, signal: NodeJS.Signals): Promise<void> {
    const nested = this.get(run, id);
    if (nested.end) return;
    if (!nested.spawned) {
      nested.killed = true;
      return;
    }
    const runtime = this.containerizer.runtime;
    if (runtime && (await runtime.kill(nested.container.name, signal))) return;
    // runc has no such container (yet, or any more): its wrapper, and runc with it.
    if (signal === 'SIGKILL' && nested.container.pid)
      try {
        process.kill(-nested.container.pid, signal);
      } catch {
        // Gone already.
      }
  }

  /** The executor has ended: its nested containers go with it. */
  ended(run: ExecutorRun): void {
    for (const [key, nested] of this.all)
      if (nested.run === run) {
        this.finish(nested, { reason: 'REASON_EXECUTOR_TERMINATED', message: 'its executor ended' });
        this.all.delete(key);
      }
  }

  /**
   * After an agent restart, the nested containers of a recovered executor (alive): each still
   * running is watched until its first process is gone (its end read from the status its wrapper
   * recorded) and holds its image again; one gone meanwhile ends so.
   */
  recover(run: ExecutorRun, records: readonly NestedRecord[]): void {
    for (const r of records) {
      const container: Container = {
        name: r.name,
        sandbox: r.sandbox,
        limits: run.container.limits,
        cgroup: run.container.cgroup,
        pid: r.pid,
      };
      const nested: Nested = { run, container, spawned: true, waiters: [] };
      this.all.set(keyOf(run, r.id), nested);
      run.nested.set(r.id, r);
      if (r.image) void this.containerizer.holdImage(container, r.image).catch(() => undefined);
      const poll = setInterval(() => {
        const alive = r.pid !== undefined && processStartTicks(r.pid) === r.startTicks;
        if (alive && !this.closed && !nested.end) return;
        clearInterval(poll);
        if (this.closed || nested.end) return;
        const code = this.containerizer.sandboxes.exitStatus(r.sandbox);
        const end = endFromRecord(code);
        this.finish(nested, { ...(code !== undefined ? { exitStatus: code << 8 } : { reason: end.reason }), message: end.message });
      }, 200);
      poll.unref();
    }
  }

  /** The agent stops: its nested containers stay for a restarted one to recover. */
  close(): void {
    this.closed = true;
  }

  /** The names of the live nested containers (kept when an agent recovers). */
  names(): string[] {
    return [...this.all.values()].filter((n) => !n.end).map((n) => n.container.name);
  }

  private get(run: ExecutorRun, id: string): Nested {
    const nested = this.all.get(keyOf(run, id));
    if (!nested) throw new NestedError(404, `no container '${id}' under executor '${run.spec.executorId}'`);
    return nested;
  }

  /** Its wrapper exited: the container's status, with the executor's OOM kill (or runc's failure) as its reason. */
  private exited(nested: Nested, code: number | null, signal: NodeJS.Signals | null): void {
    const limitation = this.containerizer.endLimitation(nested.container);
    const exitStatus = signal ? os.constants.signals[signal] : (code ?? 0) << 8;
    this.finish(nested, limitation ? { exitStatus, ...limitation } : { exitStatus, message: endOf(code, signal).message });
  }

  /** Its first process runs: recorded with its executor's, for a restarted agent. */
  private record(run: ExecutorRun, id: string, c: Container): void {
    const startTicks = c.pid ? processStartTicks(c.pid) : undefined;
    const image = this.containerizer.imageOf(c);
    run.nested.set(id, { id, name: c.name, sandbox: c.sandbox, pid: c.pid, startTicks, ...(image ? { image } : {}) });
    this.checkpoint(run);
  }

  private finish(nested: Nested, end: NestedEnd): void {
    if (nested.end) return;
    nested.end = end;
    const id = [...nested.run.nested.values()].find((r) => r.name === nested.container.name)?.id;
    if (id !== undefined && nested.run.nested.delete(id)) this.checkpoint(nested.run);
    // Its bundle and image go; runc deletes the container (killing what is left of it).
    this.containerizer.ended(nested.container);
    for (const resolve of nested.waiters.splice(0)) resolve(end);
  }
}

/** Subscribed and not being killed (its state changes while an image is provisioned). */
const running = (run: ExecutorRun): boolean => run.state === 'RUNNING';
const keyOf = (run: ExecutorRun, id: string) => `${run.containerId}/${id}`;
const failed = (message: string): NestedEnd => ({ reason: 'REASON_CONTAINER_LAUNCH_FAILED', message });
