/**
 * Scenario replay: applies a scenario's steps to a DRF sorter or a hierarchical allocator and
 * checks every expectation, collecting what was expected and what came out. The runner takes a
 * parsed document; reading files is the caller's business.
 */
import { type AllocatorOptions, HierarchicalAllocator, seededRandom } from '../allocator';
import { Resources, resourcesFromJSON } from '../resources';
import { DRFSorter, priorityThenFair } from '../sorter';
import { type ScenarioDocument, type ScenarioStep, validateScenario } from './validate';

export interface ScenarioFailure {
  stepIndex: number;
  op: string;
  message: string;
  expected: unknown;
  actual: unknown;
}

export interface ScenarioResult {
  id: string;
  kind: 'sorter' | 'allocator';
  passed: boolean;
  steps: number;
  failures: ScenarioFailure[];
}

const EPSILON = 1e-6;

/** Validates and replays a scenario. Throws ScenarioValidationError for an invalid document. */
/**
 * Replays a scenario. `policies` replace the sorter or the placement (a module's, `arbiter
 * simulate --modules`); a scenario's own `config.rolePriorities` asks for priority-then-fair.
 */
export function runScenario(doc: unknown, policies: ScenarioPolicies = {}): ScenarioResult {
  const scenario = validateScenario(doc);
  const failures: ScenarioFailure[] = [];
  const fail = (stepIndex: number, step: ScenarioStep, message: string, expected: unknown, actual: unknown) =>
    failures.push({ stepIndex, op: step.op, message, expected, actual });
  const config = (scenario.config ?? {}) as ScenarioConfig;
  const own = config.rolePriorities ? { sorterFactory: priorityThenFair(config.rolePriorities) } : {};
  // Sorter scenarios exercise the DRF sorter's own API; policies apply to allocator scenarios.
  if (scenario.kind === 'sorter') runSorterSteps(scenario, fail);
  else runAllocatorSteps(scenario, fail, { ...own, ...policies });
  return { id: scenario.id, kind: scenario.kind, passed: failures.length === 0, steps: scenario.steps.length, failures };
}

/** Quantities by resource name, e.g. `{ "cpus": 2 }`. */
type Quantities = Record<string, number>;
/** An offer as a scenario writes it. */
interface OfferSpec {
  framework: string;
  role: string;
  agent: string;
  resources: unknown;
}

/**
 * A step's fields, as validateScenario has checked them against its op's spec (scenario-format.md):
 * each op reads only its own fields, with the types checked there.
 */
interface StepFields {
  id: string;
  client: string;
  agent: string;
  role: string;
  framework: string;
  weight: number;
  share: number;
  count: number;
  seconds: number;
  start: number;
  refuseSeconds?: number;
  contains: boolean;
  resources: unknown;
  old: unknown;
  new: unknown;
  order: string[];
  roles: string[];
  capabilities?: string[];
  refinedReservations?: string[];
  agents?: string[];
  hostnames: string[] | null;
  quantities: Quantities;
  guarantees: Quantities;
  limits: Quantities;
  used?: OfferSpec[];
  offers?: OfferSpec[];
  oneOf: OfferSpec[][];
  totals: OfferSpec[];
  tally: Quantities;
  inverseOffers: Array<{ framework: string; agent: string; start: number }>;
}

const fieldsOf = (step: ScenarioStep) => step as unknown as StepFields;

/** The allocator settings a scenario's `config` may set (checked by the allocator itself). */
interface ScenarioConfig {
  allocationIntervalSeconds?: number;
  minAllocatableResources?: Quantities[];
  fairnessExcludeResourceNames?: string[];
  filterGpuResources?: boolean;
  /** Role path -> priority: the scenario runs the priority-then-fair sorter (sorter/priority-sorter.ts). */
  rolePriorities?: Record<string, number>;
}

/** Policies a replay runs with instead of the built-in ones. */
export type ScenarioPolicies = Pick<AllocatorOptions, 'sorterFactory' | 'placementFactory'>;

type Fail = (stepIndex: number, step: ScenarioStep, message: string, expected: unknown, actual: unknown) => void;

const res = (v: unknown) => resourcesFromJSON(v);

function quantitiesEqual(a: Record<string, number>, b: Record<string, number>): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].every((n) => Math.abs((a[n] ?? 0) - (b[n] ?? 0)) < EPSILON);
}

// ------------------------------------------------------------------ sorter

function runSorterSteps(scenario: ScenarioDocument, fail: Fail): void {
  const sorter = new DRFSorter();
  /** Exact allocations by client and agent, for expectAllocation. */
  const exact = new Map<string, Map<string, Resources>>();
  const held = (client: string, agent: string) => exact.get(client)?.get(agent) ?? Resources.empty();
  const hold = (client: string, agent: string, r: Resources) => {
    let byAgent = exact.get(client);
    if (!byAgent) exact.set(client, (byAgent = new Map<string, Resources>()));
    if (r.isEmpty()) byAgent.delete(agent);
    else byAgent.set(agent, r);
  };

  scenario.steps.forEach((step, i) => {
    const s = fieldsOf(step);
    switch (step.op) {
      case 'addAgent':
        sorter.addTotal(s.id, res(s.resources).scalarMilli());
        break;
      case 'removeAgent':
        sorter.removeTotal(s.id);
        break;
      case 'addClient':
        sorter.add(s.client);
        break;
      case 'activateClient':
        sorter.activate(s.client);
        break;
      case 'deactivateClient':
        sorter.deactivate(s.client);
        break;
      case 'removeClient':
        sorter.remove(s.client);
        exact.delete(s.client);
        break;
      case 'setWeight':
        sorter.setWeight(s.role, s.weight);
        break;
      case 'allocated': {
        const r = res(s.resources);
        sorter.allocated(s.client, s.agent, r.scalarMilli(), r.sharedScalars());
        hold(s.client, s.agent, held(s.client, s.agent).plus(r));
        break;
      }
      case 'unallocated': {
        const r = res(s.resources);
        sorter.unallocated(s.client, s.agent, r.scalarMilli(), r.sharedScalars());
        hold(s.client, s.agent, held(s.client, s.agent).minus(r));
        break;
      }
      case 'updateAllocation': {
        const [oldR, newR] = [res(s.old), res(s.new)];
        sorter.update(s.client, s.agent, oldR.scalarMilli(), newR.scalarMilli());
        hold(s.client, s.agent, held(s.client, s.agent).minus(oldR).plus(newR));
        break;
      }
      case 'expectSort': {
        const actual = sorter.sort();
        if (JSON.stringify(actual) !== JSON.stringify(s.order)) fail(i, step, 'sort order differs', s.order, actual);
        break;
      }
      case 'expectContains': {
        const actual = sorter.contains(s.client);
        if (actual !== s.contains) fail(i, step, `contains('${s.client}')`, s.contains, actual);
        break;
      }
      case 'expectCount': {
        const actual = sorter.count();
        if (actual !== s.count) fail(i, step, 'client count', s.count, actual);
        break;
      }
      case 'expectShare': {
        const actual = sorter.share(s.client);
        if (Math.abs(actual - s.share) > EPSILON) fail(i, step, `share of '${s.client}'`, s.share, actual);
        break;
      }
      case 'expectAllocation': {
        const expected = res(s.resources);
        const actual = held(s.client, s.agent);
        if (!actual.equals(expected)) fail(i, step, `allocation of '${s.client}' on '${s.agent}'`, expected.toString(), actual.toString());
        break;
      }
      case 'expectAllocationQuantities': {
        const milli = sorter.allocationQuantities(s.client);
        const actual = Object.fromEntries([...milli].map(([k, v]) => [k, v / 1000]));
        if (!quantitiesEqual(actual, s.quantities))
          fail(i, step, `allocation quantities${s.client ? ` of '${s.client}'` : ''}`, s.quantities, actual);
        break;
      }
    }
  });
}

// ------------------------------------------------------------------ allocator

interface OfferRow {
  framework: string;
  role: string;
  agent: string;
  resources: Resources;
}

const offerKey = (o: { framework: string; role: string; agent: string }) => `${o.framework} ${o.role} ${o.agent}`;
const describeOffers = (rows: OfferRow[]) => rows.map((o) => `${offerKey(o)}: ${o.resources.toString()}`).sort();

function sameOffers(actual: OfferRow[], expected: OfferRow[]): boolean {
  if (actual.length !== expected.length) return false;
  const byKey = new Map(actual.map((o) => [offerKey(o), o.resources]));
  return expected.every((e) => byKey.get(offerKey(e))?.equals(e.resources) ?? false);
}

function runAllocatorSteps(scenario: ScenarioDocument, fail: Fail, policies: ScenarioPolicies): void {
  const config = (scenario.config ?? {}) as ScenarioConfig;
  let now = 0;
  const allocator = new HierarchicalAllocator({
    ...policies,
    config: {
      ...(config.allocationIntervalSeconds !== undefined ? { allocationIntervalSeconds: config.allocationIntervalSeconds } : {}),
      ...(config.minAllocatableResources !== undefined ? { minAllocatableResources: config.minAllocatableResources } : {}),
      ...(config.fairnessExcludeResourceNames !== undefined ? { fairnessExcludeResourceNames: config.fairnessExcludeResourceNames } : {}),
      ...(config.filterGpuResources !== undefined ? { filterGpuResources: config.filterGpuResources } : {}),
      shuffleAgents: scenario.randomizedAgentOrder === true,
    },
    clock: { now: () => now },
    random: seededRandom(42),
  });

  let pending = new Map<string, OfferRow>();
  let last: OfferRow[] = [];
  const tally = new Map<string, number>();
  let inverse: Array<{ framework: string; agent: string; start: number }> = [];

  const consume = () => {
    last = [...pending.values()];
    pending = new Map();
    return last;
  };
  const rowsFrom = (list: OfferSpec[]): OfferRow[] =>
    list.map((o) => ({ framework: o.framework, role: o.role, agent: o.agent, resources: res(o.resources) }));

  scenario.steps.forEach((step, i) => {
    const s = fieldsOf(step);
    switch (step.op) {
      case 'addAgent':
        allocator.addAgent(s.id, res(s.resources), {
          refinedReservations: s.refinedReservations,
          used: (s.used ?? []).map((u) => ({ frameworkId: u.framework, role: u.role, resources: res(u.resources) })),
        });
        break;
      case 'removeAgent':
        allocator.removeAgent(s.id);
        break;
      case 'updateAgent':
        allocator.updateAgent(s.id, res(s.resources), s.refinedReservations);
        break;
      case 'addFramework':
        allocator.addFramework(s.id, s.roles, { capabilities: s.capabilities ?? [] });
        break;
      case 'deactivateFramework':
        allocator.deactivateFramework(s.id);
        break;
      case 'activateFramework':
        allocator.activateFramework(s.id);
        break;
      case 'suppressOffers':
        allocator.suppressOffers(s.framework, s.roles);
        break;
      case 'reviveOffers':
        allocator.reviveOffers(s.framework, s.roles);
        break;
      case 'setQuota':
        allocator.setQuota(s.role, s.guarantees, s.limits);
        break;
      case 'removeQuota':
        allocator.removeQuota(s.role);
        break;
      case 'setWeight':
        allocator.setWeight(s.role, s.weight);
        break;
      case 'updateWhitelist':
        allocator.updateWhitelist(s.hostnames);
        break;
      case 'updateUnavailability':
        allocator.updateUnavailability(s.agent, s.start);
        break;
      case 'reserve':
        allocator.reserve(s.agent, s.role, res(s.resources));
        break;
      case 'recoverResources':
        allocator.recoverResources(s.framework, s.agent, s.role, res(s.resources), s.refuseSeconds);
        break;
      case 'declineOffers': {
        // Its framework is optional: every last offer is declined when none is named.
        const only = (step as { framework?: string }).framework;
        for (const o of last) {
          if (only === undefined || o.framework === only)
            allocator.recoverResources(o.framework, o.agent, o.role, o.resources, s.refuseSeconds);
        }
        break;
      }
      case 'advanceClock':
        now += s.seconds;
        break;
      case 'allocate': {
        const result = allocator.allocate(s.agents ? { agents: s.agents } : {});
        for (const o of result.offers) {
          const row = { framework: o.frameworkId, role: o.role, agent: o.agentId, resources: o.resources };
          const key = offerKey(row);
          const existing = pending.get(key);
          pending.set(key, existing ? { ...row, resources: existing.resources.plus(o.resources) } : row);
          tally.set(o.frameworkId, (tally.get(o.frameworkId) ?? 0) + 1);
        }
        for (const io of result.inverseOffers) inverse.push({ framework: io.frameworkId, agent: io.agentId, start: io.start });
        break;
      }
      case 'expectOffers': {
        const actual = consume();
        const alternatives: OfferRow[][] = s.offers !== undefined ? [rowsFrom(s.offers)] : s.oneOf.map(rowsFrom);
        if (!alternatives.some((alt) => sameOffers(actual, alt))) {
          const expected = alternatives.length === 1 ? describeOffers(alternatives[0]) : { oneOf: alternatives.map(describeOffers) };
          fail(i, step, 'offers differ', expected, describeOffers(actual));
        }
        break;
      }
      case 'expectOfferTotals': {
        const actual = consume();
        const sums = new Map<string, Resources>();
        for (const o of actual) {
          const key = `${o.framework} ${o.role}`;
          sums.set(key, (sums.get(key) ?? Resources.empty()).plus(o.resources));
        }
        const expected = new Map<string, Resources>(s.totals.map((t) => [`${t.framework} ${t.role}`, res(t.resources)]));
        const same = sums.size === expected.size && [...expected].every(([k, r]) => sums.get(k)?.equals(r) ?? false);
        if (!same) {
          const show = (m: Map<string, Resources>) => [...m].map(([k, r]) => `${k}: ${r.toString()}`).sort();
          fail(i, step, 'offer totals differ', show(expected), show(sums));
        }
        break;
      }
      case 'expectOfferTally': {
        const expected = s.tally;
        const names = new Set([...Object.keys(expected), ...tally.keys()]);
        const differs = [...names].some((n) => (expected[n] ?? 0) !== (tally.get(n) ?? 0));
        if (differs) fail(i, step, 'offer tally differs', expected, Object.fromEntries(tally));
        break;
      }
      case 'expectInverseOffers': {
        const show = (l: Array<{ framework: string; agent: string; start: number }>) =>
          l.map((o) => `${o.framework} ${o.agent} @${o.start}`).sort();
        const [expected, actual] = [show(s.inverseOffers), show(inverse)];
        if (JSON.stringify(expected) !== JSON.stringify(actual)) fail(i, step, 'inverse offers differ', expected, actual);
        inverse = [];
        break;
      }
    }
  });
}
