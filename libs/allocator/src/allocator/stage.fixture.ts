/** Builds an allocator state by hand and runs one stage over it, for the stages' unit tests. */
import { parseResources } from '../resources';
import type { Agent } from './agent';
import { Cycle } from './cycle';
import { FastPath } from './cycle-path';
import { type FrameworkOptions, newFramework } from './framework';
import { MesosPlacement, type PlacementStrategy } from './placement';
import { quotaFromInput } from './quotas';
import { ReferencePath } from './reference-path';
import { AllocatorState } from './state';
import { TraceCollector } from './trace';
import { type AllocatorConfig, DEFAULT_CONFIG } from './types';

export interface StateSpec {
  /** Agent id -> total, in Mesos text; offered in this order (no shuffle). */
  agents: Record<string, string>;
  /** Framework id -> its roles and options. */
  frameworks: Record<string, FrameworkOptions & { roles: string[] }>;
  /** Top-level role -> guarantees and limits. */
  quotas?: Record<string, { guarantees: Record<string, number>; limits?: Record<string, number> }>;
  reference?: boolean;
  config?: Partial<AllocatorConfig>;
}

export function stateOf(spec: StateSpec): { state: AllocatorState; agents: Agent[] } {
  const state = new AllocatorState({ ...DEFAULT_CONFIG, ...spec.config }, spec.reference ? new ReferencePath() : new FastPath());
  for (const [id, options] of Object.entries(spec.frameworks)) {
    const fw = newFramework(id, options, undefined);
    state.frameworks.byId.set(id, fw);
    for (const role of options.roles) state.frameworks.subscribe(fw, role);
  }
  for (const [role, q] of Object.entries(spec.quotas ?? {})) state.quotas.set(role, quotaFromInput(role, q.guarantees, q.limits ?? {}));
  const agents = Object.entries(spec.agents).map(([id, total]) => state.addAgent(id, parseResources(total), {}));
  return { state, agents };
}

export type Stage = (
  state: AllocatorState,
  cycle: Cycle,
  candidates: readonly Agent[],
  placement: PlacementStrategy,
  pause: () => boolean,
) => Generator<void, void, void>;

/** Runs `stage` to its end over `agents` at time `now`; offers as [framework, role, agent, resources]. */
export function runStage(
  stage: Stage,
  state: AllocatorState,
  agents: readonly Agent[],
  options: { now?: number; trace?: boolean; placement?: PlacementStrategy } = {},
): { offers: Array<[string, string, string, string]>; cycle: Cycle } {
  const cycle = Cycle.start(state, options.now ?? 0, options.trace ? new TraceCollector(1000) : undefined);
  const run = stage(state, cycle, agents, options.placement ?? new MesosPlacement(false, Math.random), () => false);
  while (!run.next().done);
  return { offers: cycle.offers.map((o) => [o.frameworkId, o.role, o.agentId, o.resources.toString()]), cycle };
}

/** A table row: its name, the state, and the offers the stage makes on it. */
export type StageCase = [string, StateSpec, Array<[string, string, string, string]>];

/** Runs every case on the fast path and on the reference path: the same offers on each. */
export function onBothPaths(stage: Stage, cases: StageCase[]): void {
  describe.each([
    ['fast path', false],
    ['reference path', true],
  ])('%s', (_path, reference) => {
    it.each(cases)('%s', (_name, spec, expected) => {
      const { state, agents } = stateOf({ ...spec, reference });
      expect(runStage(stage, state, agents).offers).toEqual(expected);
    });
  });
}
