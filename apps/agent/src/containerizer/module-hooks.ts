/**
 * The agent's hooks from modules (docs/modules.md): before a task's container or an executor
 * starts (agent:container-start, agent:executor-start: they may add to its environment, which
 * goes over its spec's, as its isolators' does) and after an executor has ended and its
 * container is gone (agent:executor-removed: clean up). The runner keeps them in the modules
 * file's order and time limit; a failing or hanging hook is counted, logged and skipped.
 */
import type { ExecutorSpec, TaskSpec } from '@arbiter/contracts';
import type { HookRunner, ModuleContainer } from '@arbiter/modules';
import type { Container, Limitation, TaskIsolator } from './isolators/isolator';

export interface ModuleHooksOptions {
  runner: HookRunner;
  /** The agent's id (empty until it has registered once). */
  agentId: () => string | undefined;
}

export class ModuleHooks {
  /** Whether a start hook runs (launches wait for them only then). */
  readonly starts: boolean;
  private readonly removals: boolean;
  /** The isolator modules (agent:isolator) as one isolator beside the agent's own; none when no module is one. */
  readonly isolator?: TaskIsolator;

  constructor(private readonly options?: ModuleHooksOptions) {
    this.starts = !!options && (options.runner.has('containerStart') || options.runner.has('executorStart'));
    this.removals = !!options?.runner.has('executorRemoved');
    const runner = options?.runner;
    if (!runner?.has('isolator')) return;
    const view = (c: Container): ModuleContainer => ({ name: c.name, sandbox: c.sandbox, pid: c.pid, limits: { ...c.limits } });
    this.isolator = {
      name: 'modules',
      prepare: (c) => runner.isolatorStep('prepare', view(c)),
      isolate: (c, pid) => runner.isolatorStep('isolate', view(c), pid),
      update: (c) => runner.isolatorStep('update', view(c)),
      cleanup: (c) => (runner.isolatorStep('cleanup', view(c)), true),
    };
  }

  /** What the isolator modules' watches find of a running container (polled by the executors' limit watch). */
  async watch(c: Container): Promise<Limitation | undefined> {
    if (!this.isolator || !this.options) return undefined;
    return this.options.runner.isolatorWatch({ name: c.name, sandbox: c.sandbox, pid: c.pid, limits: { ...c.limits } });
  }

  /** Before a task's container starts: what the hooks add goes into the container's environment. */
  async containerStart(c: Container, frameworkId: string, spec: TaskSpec): Promise<void> {
    if (!this.options?.runner.has('containerStart')) return;
    const added = await this.options.runner.start('agent:container-start', {
      ...this.common(c, frameworkId, spec),
      taskId: spec.taskId,
      ...(spec.executor ? { executorId: spec.executor.executorId } : {}),
    });
    if (Object.keys(added).length) c.env = { ...c.env, ...added };
  }

  /** Before an executor starts: likewise. */
  async executorStart(c: Container, frameworkId: string, spec: ExecutorSpec): Promise<void> {
    if (!this.options?.runner.has('executorStart')) return;
    const added = await this.options.runner.start('agent:executor-start', {
      ...this.common(c, frameworkId, spec),
      executorId: spec.executorId,
    });
    if (Object.keys(added).length) c.env = { ...c.env, ...added };
  }

  /** After an executor has ended and its container is gone (not awaited by the agent). */
  async executorRemoved(c: Container, frameworkId: string, executorId: string): Promise<void> {
    if (!this.removals || !this.options) return;
    await this.options.runner.executorRemoved({ agentId: this.options.agentId() ?? '', frameworkId, executorId, sandbox: c.sandbox });
  }

  private common(c: Container, frameworkId: string, spec: TaskSpec | ExecutorSpec) {
    const image = spec.container?.image?.name;
    return {
      agentId: this.options?.agentId() ?? '',
      frameworkId,
      sandbox: c.sandbox,
      ...(spec.user ? { user: spec.user } : {}),
      environment: { ...spec.env, ...c.env },
      ...(image ? { image } : {}),
    };
  }
}
