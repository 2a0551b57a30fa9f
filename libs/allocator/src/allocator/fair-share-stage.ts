/**
 * Stage 2 of a cycle: everything else, by DRF, within quota limits and without eating into the
 * headroom unmet guarantees require (scenario-format.md, "One allocation cycle"). Agents in
 * placement order; on each, roles by DRF and their frameworks by DRF, each offered what it may
 * use of what is left.
 *
 * On a plain agent, the frameworks that passed it by (filtered, below their minimum, missing a
 * capability) are remembered in `Agent.passedBy` on the fast path: while that holds, they are
 * skipped, and a role they all passed by is skipped whole. With a trace, only once the trace
 * keeps no more entries (its counts grow by what is skipped).
 */
import { ArrayCursor } from '../sorter';
import type { Agent } from './agent';
import type { Cycle } from './cycle';
import { cutToFit, type FrameworkState } from './framework';
import { EMPTY_MILLI, milliToQuantities, topLevel } from './milli';
import type { PlacementStrategy } from './placement';
import type { AllocatorState } from './state';
import type { ReasonCode, TraceCollector } from './trace';

export interface PassedBy {
  /** The agent's available resources then (by identity). */
  available: Agent['available'];
  /** The allocator's `epoch` then. */
  epoch: number;
  /** Good while the clock is before this: the earliest end of the filters relied on. */
  until: number;
  /** Frameworks (by id) that passed the agent by, and why. */
  blocked: Map<string, ReasonCode>;
  /** Every framework of the role passed it by. */
  all: boolean;
  /** When `all`: how many frameworks passed it by, per reason (for a trace's counts). */
  reasons: Array<[ReasonCode, number]>;
}

export function* fairShareStage(
  state: AllocatorState,
  cycle: Cycle,
  candidates: readonly Agent[],
  placement: PlacementStrategy,
  pause: () => boolean,
): Generator<void, void, void> {
  const { path, quotas, frameworks, eligibility } = state;
  const { trace, now, requiredHeadroom, availableHeadroom } = cycle;
  const remember = path.remembers;
  /** Per role, its inactive and its suppressed frameworks, counted for a full trace. */
  const inactiveCounts = new Map<string, [number, number]>();
  for (const agent of placement.order(candidates)) {
    if (pause()) yield;
    if (agent.exhausted()) {
      trace?.add({ reason: 'NOTHING_AVAILABLE', agent: agent.id });
      continue;
    }
    let roles = path.order(frameworks.roleSorter);
    agent: for (let role = roles.next(); role !== undefined; role = roles.next()) {
      const sorter = frameworks.sorters.get(role);
      if (!sorter) continue;
      if (trace) traceInactiveFrameworks(state, agent, role, trace, inactiveCounts);
      const rememberable = remember && agent.plain && requiredHeadroom.size === 0 && quotas.limitedAncestors(role).length === 0;
      // What an earlier pass learnt (skipped without a trace, or once the trace is full) and
      // what this pass adds, up to its first offer (after it, the agent holds less).
      let known: ReadonlyMap<string, ReasonCode> | undefined;
      let recording = rememberable;
      let memo: PassedBy | undefined; // made at the first framework that passes the agent by
      if (rememberable) {
        const passed = agent.passedBy.get(role);
        const quiet = !trace || trace.isFull();
        if (passed?.available === agent.available && passed.epoch === state.epoch && now < passed.until) {
          if (passed.all && quiet) {
            if (trace) for (const [reason, n] of passed.reasons) trace.addCount(reason, n);
            continue;
          }
          memo = passed;
          if (quiet) known = passed.blocked;
        }
      }
      let fws = path.order(sorter);
      for (let fwId = fws.next(); fwId !== undefined; fwId = fws.next()) {
        if (known) {
          const reason = known.get(fwId);
          if (reason !== undefined) {
            trace?.addCount(reason, 1);
            continue;
          }
        }
        const fw = frameworks.byId.get(fwId);
        if (!fw) continue; // a sorter holds only known frameworks
        const usable = eligibility.usableBy(agent, fw, role, trace, cycle.offeredShared);
        if (!usable) {
          if (recording) memo = passedBy(memo, state, agent, fwId, 'MISSING_CAPABILITY', Infinity);
          continue;
        }
        const limited = requiredHeadroom.size > 0 || quotas.limitedAncestors(role).length > 0;
        let resources = usable;
        if (limited || !agent.plain) {
          const unreservedScalars = usable.unreserved().nonRevocable().scalars();
          const cut = limited
            ? quotas.cutToLimitsAndHeadroom(role, unreservedScalars, EMPTY_MILLI, requiredHeadroom, availableHeadroom, path)
            : unreservedScalars;
          if (trace && cut !== unreservedScalars && !cut.equals(unreservedScalars)) traceCut(state, cycle, agent, fw, role, trace);
          resources = agent.plain
            ? usable.nonScalars().plus(cut)
            : usable
                .filter((k) => k.reservation !== undefined)
                .plus(usable.nonScalars().unreserved())
                .plus(usable.revocable().unreserved().scalars())
                .plus(cut);
        }
        if (fw.taskSize) resources = cutToFit(resources, fw.taskSize);
        const blockedUntil = eligibility.blockedUntil(agent, fw, role, resources, now, trace);
        if (blockedUntil !== undefined) {
          if (recording)
            memo = passedBy(
              memo,
              state,
              agent,
              fwId,
              blockedUntil === Infinity ? 'BELOW_MIN_ALLOCATABLE' : 'FRAMEWORK_FILTERED',
              blockedUntil,
            );
          continue;
        }
        if (recording) {
          recording = false;
          if (memo) keepPassed(agent, role, memo, now, false);
        }
        if (!agent.takesAll(resources)) {
          roles = new ArrayCursor(roles.rest());
          fws = new ArrayCursor(fws.rest());
        }
        cycle.offer(agent, fw, role, resources);
        if (quotas.byRole.has(topLevel(role))) quotas.refreshRequiredHeadroom(requiredHeadroom);
        if (agent.exhausted()) break agent;
      }
      if (recording) keepPassed(agent, role, memo ?? newPassedBy(state, agent), now, true);
    }
  }
}

function newPassedBy(state: AllocatorState, agent: Agent): PassedBy {
  return { available: agent.available, epoch: state.epoch, until: Infinity, blocked: new Map(), all: false, reasons: [] };
}

/** Notes that the framework passed the agent by, and why (the memo is made at the first). */
function passedBy(
  memo: PassedBy | undefined,
  state: AllocatorState,
  agent: Agent,
  fwId: string,
  reason: ReasonCode,
  until: number,
): PassedBy {
  memo ??= newPassedBy(state, agent);
  memo.blocked.set(fwId, reason);
  if (until < memo.until) memo.until = until;
  return memo;
}

/** Keeps what a pass learnt about the agent and the role (`all`: every framework passed it by). */
function keepPassed(agent: Agent, role: string, memo: PassedBy, now: number, all: boolean): void {
  if (!(memo.until > now) || (!all && memo.blocked.size === 0)) {
    agent.passedBy.delete(role);
    return;
  }
  memo.all = all;
  if (all) {
    // Counted once, for the passes that will be skipped with a full trace.
    const counts = new Map<ReasonCode, number>();
    for (const reason of memo.blocked.values()) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    memo.reasons = [...counts];
  }
  if (agent.passedBy.get(role) !== memo) agent.passedBy.set(role, memo);
}

/** Why an offer was cut: the role at its quota limit, or headroom held for unmet guarantees. */
function traceCut(state: AllocatorState, cycle: Cycle, agent: Agent, fw: FrameworkState, role: string, trace: TraceCollector): void {
  const { quotas } = state;
  const limited = quotas.limitCaps(role, new Map());
  if ([...limited.values()].some((v) => v === 0)) {
    const top = topLevel(role);
    trace.add({
      reason: 'ROLE_AT_QUOTA_LIMIT',
      agent: agent.id,
      role,
      framework: fw.id,
      limit: milliToQuantities(quotas.byRole.get(top)?.limits ?? new Map()),
      consumed: milliToQuantities(quotas.consumed(top)),
    });
  }
  if (cycle.requiredHeadroom.size > 0) {
    trace.add({
      reason: 'HEADROOM_RESERVED',
      agent: agent.id,
      role,
      framework: fw.id,
      required: milliToQuantities(cycle.requiredHeadroom),
      available: milliToQuantities(cycle.availableHeadroom),
    });
  }
}

function traceInactiveFrameworks(
  state: AllocatorState,
  agent: Agent,
  role: string,
  trace: TraceCollector,
  inactiveCounts: Map<string, [number, number]>,
): void {
  const { frameworks } = state;
  if (trace.isFull()) {
    // Only counts grow now: the role's inactive and suppressed frameworks, counted once a cycle.
    let counts = inactiveCounts.get(role);
    if (!counts) {
      counts = [0, 0];
      for (const fwId of frameworks.byRole.get(role) ?? []) {
        const fw = frameworks.byId.get(fwId);
        if (!fw) continue;
        if (!fw.active) counts[0]++;
        else if (fw.suppressed.has(role)) counts[1]++;
      }
      inactiveCounts.set(role, counts);
    }
    trace.addCount('FRAMEWORK_INACTIVE', counts[0]);
    trace.addCount('FRAMEWORK_SUPPRESSED', counts[1]);
    return;
  }
  for (const fwId of frameworks.byRole.get(role) ?? []) {
    const fw = frameworks.byId.get(fwId);
    if (!fw) continue;
    if (!fw.active) trace.add({ reason: 'FRAMEWORK_INACTIVE', agent: agent.id, role, framework: fwId });
    else if (fw.suppressed.has(role)) trace.add({ reason: 'FRAMEWORK_SUPPRESSED', agent: agent.id, role, framework: fwId });
  }
}
