/**
 * One allocation cycle (scenario-format.md, "One allocation cycle"): the candidate agents
 * (known, whitelisted, active), stage 1 (quota-stage.ts), stage 2 (fair-share-stage.ts), then
 * inverse offers for agents under scheduled unavailability. Yields before each agent when
 * `pause` says so.
 */
import type { Agent } from './agent';
import { Cycle } from './cycle';
import { fairShareStage } from './fair-share-stage';
import type { PlacementStrategy } from './placement';
import { quotaStage } from './quota-stage';
import type { AllocatorState } from './state';
import type { TraceCollector } from './trace';
import type { CycleResult } from './types';

export function* runCycle(
  state: AllocatorState,
  placement: PlacementStrategy,
  now: number,
  trace: TraceCollector | undefined,
  agents: Iterable<string> | undefined,
  pause: () => boolean,
): Generator<void, CycleResult, void> {
  const candidates: Agent[] = [];
  for (const id of agents ?? state.agents.keys()) {
    if (pause()) yield;
    const agent = state.agents.get(id);
    if (!agent) continue;
    if (state.whitelist && !state.whitelist.has(agent.hostname)) {
      trace?.add({ reason: 'AGENT_NOT_WHITELISTED', agent: id });
      continue;
    }
    if (!agent.activated) {
      trace?.add(
        agent.deactivatedForMaintenance ? { reason: 'AGENT_IN_MAINTENANCE', agent: id } : { reason: 'AGENT_DEACTIVATED', agent: id },
      );
      continue;
    }
    candidates.push(agent);
  }
  const cycle = Cycle.start(state, now, trace);
  yield* quotaStage(state, cycle, candidates, placement, pause);
  yield* fairShareStage(state, cycle, candidates, placement, pause);
  const inverseOffers = cycle.inverseOffers(candidates);
  return { offers: cycle.offers, inverseOffers, ...(trace ? { trace: trace.result() } : {}) };
}
