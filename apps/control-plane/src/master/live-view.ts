/**
 * What only the leader knows first-hand (which agents and frameworks are connected, which
 * offers are outstanding), for the REST API on any replica: the leader answers from its
 * memory, a standby from what the leader keeps in the database (agents' last signs of life,
 * frameworks' states, the outstanding offers), a few seconds behind at most.
 */
import { Inject, Injectable } from '@nestjs/common';
import { Leadership } from '../leadership/leadership.service';
import { CLOCK, type Clock } from '../kernel/clock';
import { Kernel } from '../kernel/kernel';
import { AGENT_HEARTBEAT_SECONDS } from './agent-registry';
import { ClusterState } from './cluster-state';
import { LiveViewRepository } from './live-view.repository';
import { revocableOn, revocableUsage, type RevocableUsage } from './revocable';

export interface LiveSnapshot {
  connectedFrameworks: ReadonlySet<string>;
  connectedAgents: ReadonlySet<string>;
  /** Outstanding offers: whose, and how long ago they were made. */
  offers: ReadonlyArray<{ frameworkId: string; ageMs: number }>;
}

@Injectable()
export class LiveView {
  constructor(
    private readonly leadership: Leadership,
    private readonly state: ClusterState,
    private readonly repo: LiveViewRepository,
    private readonly kernel: Kernel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async snapshot(): Promise<LiveSnapshot> {
    if (this.leadership.isLeader) {
      const now = this.clock.now();
      const connected = (m: { values(): Iterable<{ readonly id: string; readonly socket?: unknown }> }) =>
        new Set([...m.values()].filter((r) => r.socket !== undefined).map((r) => r.id));
      return {
        connectedFrameworks: connected(this.state.frameworks),
        connectedAgents: connected(this.state.agents),
        offers: [...this.state.offers.values()].map((o) => ({ frameworkId: o.frameworkId, ageMs: now - o.createdAt })),
      };
    }
    const [frameworks, agents, offers] = await Promise.all([
      this.repo.connectedFrameworks(),
      // The leader records agents' signs of life every heartbeat.
      this.repo.recentlySeenAgents(3 * AGENT_HEARTBEAT_SECONDS),
      this.repo.outstandingOffers(),
    ]);
    return { connectedFrameworks: new Set(frameworks), connectedAgents: new Set(agents), offers };
  }

  /**
   * Revocable (oversubscribed) resources on these agents. The leader reads its allocator and
   * offer book in one turn of the serial order, so between two cycles (never of a cycle paused
   * between slices) and the same instant for every agent; a standby sums the revocable entries
   * of what the leader wrote (the agents' totals, live tasks and executors, outstanding offers)
   * for reachable agents. An agent the allocator does not have (unreachable, gone) has none.
   */
  async revocable(agentIds: readonly string[]): Promise<Map<string, RevocableUsage>> {
    if (!agentIds.length) return new Map();
    if (this.leadership.isLeader)
      return this.kernel.serial(() => Promise.resolve(new Map(agentIds.map((id) => [id, revocableUsage(revocableOn(this.state, id))]))));
    return this.repo.revocable(agentIds);
  }
}
