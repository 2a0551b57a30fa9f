/**
 * The control-plane:task-launch hooks (docs/modules.md) on each task of an accept, in the
 * accept's turn, before its executor starts or its resources are taken: a hook may add labels
 * and environment variables to the task, or refuse it (the accept is refused
 * TASK_REFUSED_BY_MODULE, which a Mesos framework sees as TASK_ERROR with the module's reason).
 * A hook that fails or takes longer than the modules file's hookTimeoutMs is skipped (counted,
 * logged); the task launches without its changes.
 */
import { PROTOCOL_ERRORS, TaskSpec } from '@arbiter/contracts';
import type { LoadedModules } from '@arbiter/modules';
import { Inject, Injectable } from '@nestjs/common';
import { LOADED_MODULES } from '../config/config.modules';
import { ProtocolError } from '../kernel/protocol-error';
import { ClusterState, type FrameworkRuntime } from '../master/cluster-state';

@Injectable()
export class LaunchHooks {
  private readonly active: boolean;

  constructor(
    @Inject(LOADED_MODULES) private readonly modules: LoadedModules,
    private readonly state: ClusterState,
  ) {
    this.active = modules.hooks.has('taskLaunch');
  }

  /** The task as the hooks leave it (the same object when there are none or they change nothing); throws when one refuses it. */
  async apply(fw: FrameworkRuntime, agentId: string, role: string, spec: TaskSpec): Promise<TaskSpec> {
    if (!this.active) return spec;
    const image = spec.container?.image?.name ?? spec.executor?.container?.image?.name;
    const out = await this.modules.hooks.taskLaunch({
      frameworkId: fw.id,
      frameworkName: fw.name,
      role,
      ...(fw.actor ? { principal: fw.actor.name } : {}),
      agentId,
      ...(this.state.agents.get(agentId)?.hostname ? { hostname: this.state.agents.get(agentId)?.hostname } : {}),
      task: {
        taskId: spec.taskId,
        name: spec.name,
        labels: spec.labels ?? [],
        environment: spec.env ?? {},
        resources: spec.resources,
        ...(spec.executor ? { executorId: spec.executor.executorId } : {}),
        ...(image ? { image } : {}),
      },
    });
    if (out.refused)
      throw new ProtocolError(
        PROTOCOL_ERRORS.TASK_REFUSED_BY_MODULE,
        `task '${spec.taskId}' was refused by module ${out.refused.module}: ${out.refused.reason}`,
        { taskId: spec.taskId, module: out.refused.module },
      );
    if (!out.changed) return spec;
    const decorated: TaskSpec = {
      ...spec,
      ...(out.labels.length ? { labels: out.labels } : {}),
      ...(Object.keys(out.environment).length ? { env: out.environment } : {}),
    };
    // What the hooks added must still be a task the wire carries (label and variable sizes, their count).
    const checked = TaskSpec.safeParse(decorated);
    if (checked.success) return decorated;
    const { counters } = this.modules;
    counters.failed(
      counters.of('task-launch hooks', 'control-plane:task-launch'),
      new Error(`their labels or environment make task '${spec.taskId}' invalid: ${checked.error.issues[0]?.message ?? 'invalid'}`),
      'the task launches without their changes',
    );
    return spec;
  }
}
