/**
 * The executors running on agents (Mesos's ExecutorInfo, one per agent, framework and executor
 * id): started with the first task that names them, their resources accounted to their
 * framework beside their tasks' until they end. The registry is their one owner: the executors'
 * handler changes it (launched, ended), always in the kernel's order; everything else reads it
 * through `ExecutorRegistryView`, whose executors are read-only.
 */
import type { ExecutorSpec, ResourceEntry } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { Registry, type RegistryView } from './registry';

/** One key per executor: an executor id is its framework's own, on one agent. */
export const executorKey = (agentId: string, frameworkId: string, executorId: string) =>
  `${agentId}\u0000${frameworkId}\u0000${executorId}`;

export interface ExecutorRuntime {
  /** `executorKey(agentId, frameworkId, executorId)`. */
  readonly id: string;
  /** The stored row's id. */
  readonly rowId: string;
  readonly agentId: string;
  readonly frameworkId: string;
  readonly executorId: string;
  readonly spec: ExecutorSpec;
  /** The role whose offered resources its own resources came from. */
  readonly role: string;
  readonly resources: ResourceEntry[];
  readonly startedAt: Date;
}

/** What may read the executors without changing them. */
export interface ExecutorRegistryView extends RegistryView<ExecutorRuntime> {
  find(agentId: string, frameworkId: string, executorId: string): ExecutorRuntime | undefined;
  onAgent(agentId: string): Iterable<ExecutorRuntime>;
  ofFramework(frameworkId: string): Iterable<ExecutorRuntime>;
}

@Injectable()
export class ExecutorRegistry extends Registry<ExecutorRuntime> implements ExecutorRegistryView {
  private readonly byAgent = new Map<string, Map<string, ExecutorRuntime>>();
  private readonly byFramework = new Map<string, Map<string, ExecutorRuntime>>();

  constructor() {
    super('an executor');
  }

  find(agentId: string, frameworkId: string, executorId: string): ExecutorRuntime | undefined {
    return this.get(executorKey(agentId, frameworkId, executorId));
  }

  onAgent(agentId: string): Iterable<ExecutorRuntime> {
    return [...(this.byAgent.get(agentId)?.values() ?? [])];
  }

  ofFramework(frameworkId: string): Iterable<ExecutorRuntime> {
    return [...(this.byFramework.get(frameworkId)?.values() ?? [])];
  }

  /** An executor starts (its first task accepted), or is known again from the database at start. */
  launched(executor: ExecutorRuntime): void {
    this.put(executor);
    index(this.byAgent, executor.agentId).set(executor.id, executor);
    index(this.byFramework, executor.frameworkId).set(executor.id, executor);
  }

  /** An executor ended (it exited, its agent or framework went, its launch was not recorded). */
  ended(id: string): void {
    const executor = this.get(id);
    this.remove(id);
    if (!executor) return;
    unindex(this.byAgent, executor.agentId, id);
    unindex(this.byFramework, executor.frameworkId, id);
  }

  override clear(): void {
    super.clear();
    this.byAgent.clear();
    this.byFramework.clear();
  }
}

function index(by: Map<string, Map<string, ExecutorRuntime>>, key: string): Map<string, ExecutorRuntime> {
  let m = by.get(key);
  if (!m) by.set(key, (m = new Map<string, ExecutorRuntime>()));
  return m;
}

function unindex(by: Map<string, Map<string, ExecutorRuntime>>, key: string, id: string): void {
  const m = by.get(key);
  m?.delete(id);
  if (m?.size === 0) by.delete(key);
}
