/**
 * Stage 1 of a cycle: quota guarantees (scenario-format.md, "One allocation cycle"). Agents in
 * placement order; on each, roles by DRF, and for a role with unmet guarantees its frameworks by
 * DRF, each offered the unreserved scalars that meet what is unmet, plus the role's reservations,
 * non-scalars and revocable resources, plus what limits and the headroom for other roles'
 * guarantees allow beyond. Nothing to do when every guarantee is met. Yields before each agent
 * when `pause` says so (a cycle run in slices).
 */
import { ArrayCursor } from '../sorter';
import type { Agent } from './agent';
import type { Cycle } from './cycle';
import { cutToFit } from './framework';
import { addMilli, milliToQuantities } from './milli';
import type { PlacementStrategy } from './placement';
import type { AllocatorState } from './state';

export function* quotaStage(
  state: AllocatorState,
  cycle: Cycle,
  candidates: readonly Agent[],
  placement: PlacementStrategy,
  pause: () => boolean,
): Generator<void, void, void> {
  const { path, quotas, frameworks, eligibility } = state;
  const { trace, now, requiredHeadroom, availableHeadroom } = cycle;
  if (requiredHeadroom.size === 0) return;
  for (const agent of placement.order(candidates)) {
    if (pause()) yield;
    let roles = path.order(frameworks.roleSorter);
    agent: for (let role = roles.next(); role !== undefined; role = roles.next()) {
      if (agent.exhausted()) break agent;
      const quota = quotas.byRole.get(role);
      if (!quota || quota.guarantees.size === 0) continue;
      const sorter = frameworks.sorters.get(role);
      if (!sorter) continue;
      let fws = path.order(sorter);
      for (let fwId = fws.next(); fwId !== undefined; fwId = fws.next()) {
        const unmet = quotas.unmetGuarantees(role, quota);
        if (unmet.size === 0) {
          trace?.add({ reason: 'ROLE_QUOTA_MET', agent: agent.id, role, stage: 1 });
          break;
        }
        const fw = frameworks.byId.get(fwId);
        if (!fw) continue; // a sorter holds only known frameworks
        const usable = eligibility.usableBy(agent, fw, role, trace, cycle.offeredShared);
        if (!usable) continue;
        const unreserved = usable.unreserved().nonRevocable().scalars();
        const guaranteed = path.capScalars(unreserved, unmet, false);
        if (guaranteed.isEmpty()) {
          trace?.add({ reason: 'NO_QUOTA_GUARANTEE_ON_AGENT', agent: agent.id, role, framework: fwId, unmet: milliToQuantities(unmet) });
          continue;
        }
        const guaranteedMilli = guaranteed.scalarMilli();
        const rest = quotas.cutToLimitsAndHeadroom(
          role,
          unreserved.minus(guaranteed),
          guaranteedMilli,
          requiredHeadroom,
          availableHeadroom,
          path,
        );
        let resources = path.quotaOffer(agent, usable, role, guaranteed, rest);
        if (fw.taskSize) resources = cutToFit(resources, fw.taskSize);
        if (eligibility.blockedUntil(agent, fw, role, resources, now, trace) === undefined) {
          if (!agent.takesAll(resources)) {
            // The loops go on over this agent: keep the orders as they were (Mesos sorts once).
            roles = new ArrayCursor(roles.rest());
            fws = new ArrayCursor(fws.rest());
          }
          cycle.offer(agent, fw, role, resources);
          addMilli(requiredHeadroom, guaranteedMilli, -1);
          for (const [k, v] of requiredHeadroom) if (v <= 0) requiredHeadroom.delete(k);
          if (agent.exhausted()) break agent;
        }
      }
    }
  }
}
