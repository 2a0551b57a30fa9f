/**
 * Offer filters: a framework that declines an offer with refuse seconds is not offered the
 * same or less on that agent under that role until they pass (Mesos's RefusedOfferFilter).
 */
import type { Resources } from '../resources';
import type { Agent } from './agent';
import type { CyclePath } from './cycle-path';
import type { FrameworkState } from './framework';
import type { TraceCollector } from './trace';

const YEAR_SECONDS = 365 * 24 * 3600;

export interface Filter {
  resources: Resources;
  installedAt: number;
  refuseSeconds: number;
  duration: number;
  /** The last resources (by identity; they are immutable) found within `resources`. */
  covers?: Resources;
}

/** role -> framework -> that framework's filters for the agent under the role. */
export type AgentFilters = Map<string, Map<FrameworkState, Filter[]>>;

export class OfferFilters {
  /**
   * Offer filters by agent id. They are kept by id, not with the agent: as before, a removed
   * agent's filters under roles its frameworks no longer hold stay, and apply if an agent of
   * the same id comes back.
   */
  private readonly byAgent = new Map<string, AgentFilters>();

  constructor(private readonly allocationIntervalSeconds: number) {}

  /** The filters on an agent (made empty when there are none yet). */
  forAgent(agentId: string): AgentFilters {
    let filters = this.byAgent.get(agentId);
    if (!filters) this.byAgent.set(agentId, (filters = new Map<string, Map<FrameworkState, Filter[]>>()));
    return filters;
  }

  /**
   * Holds back `resources` from the framework on the agent under the role for
   * `refuseSeconds` (negative: Mesos's default of 5; at most a year; at least one interval).
   */
  install(agent: Agent, fw: FrameworkState, role: string, resources: Resources, refuseSeconds: number, now: number): void {
    let r = refuseSeconds < 0 ? 5 : Math.min(refuseSeconds, YEAR_SECONDS);
    if (!Number.isFinite(r)) r = YEAR_SECONDS;
    const filter: Filter = { resources, installedAt: now, refuseSeconds: r, duration: Math.max(r, this.allocationIntervalSeconds) };
    let byFw = agent.filters.get(role);
    if (!byFw) agent.filters.set(role, (byFw = new Map<FrameworkState, Filter[]>()));
    const list = byFw.get(fw);
    if (list) list.push(filter);
    else byFw.set(fw, [filter]);
    fw.filteredAgents.add(agent.id);
  }

  /** Deletes the framework's filters: all, or those under `roles`. */
  clear(fw: FrameworkState, roles?: ReadonlySet<string>): void {
    for (const agentId of fw.filteredAgents) {
      const filters = this.byAgent.get(agentId);
      if (!filters) continue;
      for (const [role, byFw] of filters) if (!roles || roles.has(role)) byFw.delete(fw);
    }
    if (!roles) fw.filteredAgents.clear();
  }

  /** An agent goes: the filters of its frameworks under the roles they hold go with it. */
  agentRemoved(agent: Agent): void {
    for (const [role, byFw] of agent.filters) {
      for (const fw of [...byFw.keys()]) if (fw.roles.has(role)) byFw.delete(fw);
      if (byFw.size === 0) agent.filters.delete(role);
    }
    if (agent.filters.size === 0) this.byAgent.delete(agent.id);
  }

  /** Filters held (declines with refuse seconds not yet expired, or not yet looked at since). */
  count(): number {
    let n = 0;
    for (const byRole of this.byAgent.values()) for (const byFw of byRole.values()) for (const list of byFw.values()) n += list.length;
    return n;
  }

  /**
   * Until when a filter holds `resources` back from the framework on the agent under the role
   * (the end of the first that does), or undefined. Expired filters are dropped on the way.
   */
  filteredUntil(
    agent: Agent,
    fw: FrameworkState,
    role: string,
    resources: Resources,
    now: number,
    path: CyclePath,
    trace?: TraceCollector,
  ): number | undefined {
    const byFw = agent.filters.get(role);
    const filters = byFw?.get(fw);
    if (!byFw || !filters) return undefined;
    let live = 0;
    for (const f of filters) {
      const expiry = f.installedAt + f.duration;
      const active = now < expiry || (now === expiry && f.refuseSeconds <= this.allocationIntervalSeconds);
      if (active && path.covers(f, resources)) {
        trace?.add({ reason: 'FRAMEWORK_FILTERED', agent: agent.id, role, framework: fw.id, until: expiry });
        return expiry;
      }
      if (now <= expiry) live++;
    }
    if (live === 0) byFw.delete(fw);
    else if (live !== filters.length)
      byFw.set(
        fw,
        filters.filter((f) => now <= f.installedAt + f.duration),
      );
    return undefined;
  }
}
