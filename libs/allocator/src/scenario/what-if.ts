/**
 * What-if on a snapshot of a live allocator: the next N cycles as they would run now, and as
 * they would run after a change (weights, quota, agents added or removed, frameworks and their
 * demand), each cycle's offers, dominant shares and decision reasons side by side. A snapshot
 * also becomes a scenario file (`arbiter simulate`), so a question asked of the live cluster can
 * be kept, edited and replayed.
 *
 * The model of the frameworks: each keeps what it is offered (as Mesos's allocator tests do)
 * until it holds its demand, when one is given; offers past its demand are declined with the
 * default filter (5 s). Time moves one allocation interval per cycle.
 */
import {
  type AllocatorOptions,
  type AllocatorSnapshot,
  type Quantities,
  type ReasonCode,
  restoreAllocator,
  seededRandom,
} from '../allocator';
import { type ResourceEntry, Resources } from '../resources';

export interface WhatIfChange {
  /** New weights per role. */
  weights?: Record<string, number>;
  /** New quota per top-level role; null removes it. */
  quotas?: Record<string, { guarantees: Quantities; limits?: Quantities } | null>;
  /** Agents to add: `count` copies of one machine (hostnames get -1, -2, ... when count > 1). */
  addAgents?: Array<{ hostname: string; resources: ResourceEntry[]; count?: number }>;
  /** Agents to take away, by id or hostname. */
  removeAgents?: string[];
  /** New frameworks (a team that would join). */
  addFrameworks?: Array<{ id: string; roles: string[]; capabilities?: string[] }>;
  /** Frameworks to take away, by id. */
  removeFrameworks?: string[];
  /** What a framework would hold at most (scalar quantities); it declines offers past it. */
  demand?: Record<string, Quantities>;
}

export interface SimulatedCycle {
  cycle: number;
  offers: Array<{ frameworkId: string; role: string; agentId: string; resources: ResourceEntry[] }>;
  /** Weighted dominant shares after the cycle, per role and per framework and role. */
  shares: { roles: Record<string, number>; frameworks: Record<string, Record<string, number>> };
  /** Why resources were not offered, counted by reason. */
  reasons: Partial<Record<ReasonCode, number>>;
}

export interface WhatIfResult {
  baseline: SimulatedCycle[];
  changed: SimulatedCycle[];
}

/** A change that does not fit the snapshot (an unknown agent or framework, a duplicate id). */
export class WhatIfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WhatIfError';
  }
}

/** Refuse seconds of a simulated decline (Mesos's default filter). */
const DECLINE_REFUSE_SECONDS = 5;

/** The snapshot with the change applied (the snapshot itself is left as it is). */
export function applyChange(snapshot: AllocatorSnapshot, change: WhatIfChange): AllocatorSnapshot {
  const next: AllocatorSnapshot = structuredClone(snapshot);
  Object.assign(next.weights, change.weights ?? {});
  const quotas = new Map(Object.entries(next.quotas));
  for (const [role, q] of Object.entries(change.quotas ?? {})) {
    if (q === null) quotas.delete(role);
    else quotas.set(role, { guarantees: q.guarantees, limits: q.limits ?? {} });
  }
  next.quotas = Object.fromEntries(quotas);
  for (const ref of change.removeAgents ?? []) {
    const i = next.agents.findIndex((a) => a.id === ref || a.hostname === ref);
    if (i < 0) throw new WhatIfError(`removeAgents: no agent '${ref}' (give an id or a hostname)`);
    next.agents.splice(i, 1);
  }
  for (const add of change.addAgents ?? []) {
    const count = add.count ?? 1;
    for (let n = 1; n <= count; n++) {
      const hostname = count > 1 ? `${add.hostname}-${n}` : add.hostname;
      const id = `what-if:${hostname}`;
      if (next.agents.some((a) => a.id === id || a.hostname === hostname))
        throw new WhatIfError(`addAgents: an agent '${hostname}' is already there`);
      next.agents.push({ id, hostname, total: Resources.of(add.resources).toJSON(), activated: true, maintenance: false, used: [] });
    }
  }
  for (const id of change.removeFrameworks ?? []) {
    if (!next.frameworks.some((f) => f.id === id)) throw new WhatIfError(`removeFrameworks: no framework '${id}'`);
    next.frameworks = next.frameworks.filter((f) => f.id !== id);
    for (const a of next.agents) a.used = a.used.filter((u) => u.frameworkId !== id);
  }
  for (const f of change.addFrameworks ?? []) {
    if (next.frameworks.some((x) => x.id === f.id)) throw new WhatIfError(`addFrameworks: a framework '${f.id}' is already there`);
    next.frameworks.push({ id: f.id, roles: f.roles, capabilities: f.capabilities ?? [], active: true, suppressedRoles: [] });
  }
  for (const id of Object.keys(change.demand ?? {}))
    if (!next.frameworks.some((f) => f.id === id)) throw new WhatIfError(`demand: no framework '${id}'`);
  return next;
}

/** The next `cycles` allocation cycles from the snapshot, the frameworks keeping offers up to their demand. */
export function simulateCycles(
  snapshot: AllocatorSnapshot,
  cycles: number,
  demand: Record<string, Quantities> = {},
  policies: AllocatorPolicies = {},
): SimulatedCycle[] {
  let now = 0;
  const allocator = restoreAllocator(snapshot, { ...policies, clock: { now: () => now }, random: seededRandom(1) });
  const held = new Map<string, Map<string, number>>();
  for (const a of snapshot.agents) for (const u of a.used) addQuantities(held, u.frameworkId, Resources.of(u.resources).scalarQuantities());
  const demands = new Map(Object.entries(demand));
  const out: SimulatedCycle[] = [];
  for (let cycle = 1; cycle <= cycles; cycle++) {
    now += snapshot.config.allocationIntervalSeconds;
    const result = allocator.allocate({ trace: true });
    for (const o of result.offers) {
      const wants = demands.get(o.frameworkId);
      if (wants && !below(held.get(o.frameworkId), wants))
        allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources, DECLINE_REFUSE_SECONDS);
      else addQuantities(held, o.frameworkId, o.resources.scalarQuantities());
    }
    out.push({
      cycle,
      offers: result.offers.map((o) => ({ frameworkId: o.frameworkId, role: o.role, agentId: o.agentId, resources: o.resources.toJSON() })),
      shares: allocator.shares(),
      reasons: { ...(result.trace?.counts ?? {}) },
    });
  }
  return out;
}

/** The next `cycles` cycles without and with the change. */
/** Allocator policies a simulation runs with (a sorter or placement module's; the built-in ones when unset). */
export type AllocatorPolicies = Pick<AllocatorOptions, 'sorterFactory' | 'placementFactory'>;

export function whatIf(snapshot: AllocatorSnapshot, change: WhatIfChange, cycles: number, policies: AllocatorPolicies = {}): WhatIfResult {
  return {
    baseline: simulateCycles(snapshot, cycles, {}, policies),
    changed: simulateCycles(applyChange(snapshot, change), cycles, change.demand, policies),
  };
}

/**
 * The snapshot as an allocator scenario (scenario-format.md) that runs `cycles` batch cycles:
 * replay it with `arbiter simulate`, add expectations, or edit it to ask another question.
 */
export function snapshotToScenario(snapshot: AllocatorSnapshot, options: { id: string; cycles: number; description?: string }) {
  const steps: Array<Record<string, unknown>> = [];
  for (const f of snapshot.frameworks) {
    steps.push({ op: 'addFramework', id: f.id, roles: f.roles, capabilities: f.capabilities });
    if (!f.active) steps.push({ op: 'deactivateFramework', id: f.id });
    if (f.suppressedRoles.length) steps.push({ op: 'suppressOffers', framework: f.id, roles: f.suppressedRoles });
  }
  for (const [role, weight] of Object.entries(snapshot.weights)) steps.push({ op: 'setWeight', role, weight });
  for (const [role, q] of Object.entries(snapshot.quotas)) steps.push({ op: 'setQuota', role, guarantees: q.guarantees, limits: q.limits });
  if (snapshot.whitelist) steps.push({ op: 'updateWhitelist', hostnames: snapshot.whitelist });
  for (const a of snapshot.agents) {
    steps.push({
      op: 'addAgent',
      id: a.id,
      resources: a.total,
      used: a.used.map((u) => ({ framework: u.frameworkId, role: u.role, resources: u.resources })),
    });
  }
  for (let cycle = 1; cycle <= options.cycles; cycle++) {
    steps.push({ op: 'advanceClock', seconds: snapshot.config.allocationIntervalSeconds });
    steps.push({ op: 'allocate', trigger: 'batch' });
  }
  const { allocationIntervalSeconds, minAllocatableResources, fairnessExcludeResourceNames, filterGpuResources } = snapshot.config;
  return {
    id: options.id,
    source: { repo: null, file: 'live cluster', test: options.id },
    description: options.description ?? 'A snapshot of a live Arbiter cluster',
    kind: 'allocator' as const,
    randomizedAgentOrder: true,
    config: { allocationIntervalSeconds, minAllocatableResources, fairnessExcludeResourceNames, filterGpuResources },
    notes: [
      'The scenario format has no deactivated agents: agents an operator deactivated, and machines DOWN for maintenance, are offered here.',
    ],
    steps,
  };
}

function addQuantities(into: Map<string, Map<string, number>>, frameworkId: string, q: ReadonlyMap<string, number>): void {
  let m = into.get(frameworkId);
  if (!m) into.set(frameworkId, (m = new Map<string, number>()));
  for (const [name, v] of q) m.set(name, (m.get(name) ?? 0) + v);
}

/** Whether what is held is below the demand in some resource it names. */
function below(held: ReadonlyMap<string, number> | undefined, demand: Quantities): boolean {
  return Object.entries(demand).some(([name, want]) => (held?.get(name) ?? 0) < want);
}
