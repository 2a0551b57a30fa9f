/**
 * The allocator as REST services may read it: a copy taken in a turn of the serial order, so
 * never of a cycle paused between two slices (whose allocator has offered part of the cluster
 * and not yet recorded its offers).
 */
import type { HierarchicalAllocator } from '@arbiter/allocator';
import { Resources } from '@arbiter/allocator';
import { Injectable } from '@nestjs/common';
import { Kernel } from '../kernel/kernel';
import { ClusterState } from '../master/cluster-state';

export interface ClusterSnapshot {
  /** The allocator's state, with the outstanding offers given back. */
  allocator: ReturnType<HierarchicalAllocator['snapshot']>;
  /** The frameworks the master knows, by id: their names. */
  frameworks: Record<string, string>;
}

@Injectable()
export class AllocationSnapshot {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
  ) {}

  /**
   * A consistent copy of the allocator between two cycles. Outstanding offers are given back in
   * it: they are answered within seconds and their resources offered anew, so what-if asks how
   * the next cycles would share everything that is not running tasks.
   */
  read(): Promise<ClusterSnapshot> {
    return this.kernel.serial(() => Promise.resolve(this.take()));
  }

  private take(): ClusterSnapshot {
    const allocator = this.state.allocator.snapshot();
    const byId = new Map(allocator.agents.map((a) => [a.id, a]));
    for (const o of this.state.offers.values()) {
      const agent = byId.get(o.agentId);
      const used = agent?.used.find((u) => u.frameworkId === o.frameworkId && u.role === o.role);
      if (!agent || !used) continue;
      const left = Resources.of(used.resources).minus(o.resources);
      if (left.isEmpty()) agent.used = agent.used.filter((u) => u !== used);
      else used.resources = left.toJSON();
    }
    const frameworks: Record<string, string> = {};
    for (const f of this.state.frameworks.values()) frameworks[f.id] = f.name;
    return { allocator, frameworks };
  }
}
