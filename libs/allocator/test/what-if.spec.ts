/**
 * What-if on a snapshot: the snapshot restores the same allocator, a change shows in the
 * predicted offers and shares, demand caps what a framework keeps, and the snapshot replays
 * as a scenario file.
 */
import {
  applyChange,
  HierarchicalAllocator,
  Resources,
  restoreAllocator,
  runScenario,
  seededRandom,
  simulateCycles,
  snapshotToScenario,
  whatIf,
  WhatIfError,
} from '../src';

/** Twelve agents of one cpu and 1 GB, frameworks fa (role a) and fb (role b). */
function cluster(): HierarchicalAllocator {
  const allocator = new HierarchicalAllocator({ clock: { now: () => 0 }, random: seededRandom(7) });
  allocator.addFramework('fa', ['a']);
  allocator.addFramework('fb', ['b']);
  for (let i = 1; i <= 12; i++) allocator.addAgent(`agent${i}`, Resources.fromScalars({ cpus: 1, mem: 1024 }), { hostname: `host${i}` });
  return allocator;
}

/** Agents offered per framework over the cycles. */
const agentsOffered = (cycles: ReturnType<typeof simulateCycles>) => {
  const out: Record<string, number> = {};
  for (const c of cycles) for (const o of c.offers) out[o.frameworkId] = (out[o.frameworkId] ?? 0) + 1;
  return out;
};

describe('what-if', () => {
  it('restores an allocator in the state it was snapshotted in: same snapshot, same next offers', () => {
    const live = cluster();
    live.setWeight('a', 3);
    live.setQuota('b', { cpus: 2 }, { cpus: 6 });
    live.deactivateFramework('fb');
    live.addAgent('gpu', Resources.fromScalars({ cpus: 4, mem: 4096, gpus: 1 }), {
      used: [{ frameworkId: 'fa', role: 'a', resources: Resources.fromScalars({ cpus: 1, mem: 512 }) }],
    });
    const snapshot = live.snapshot();
    const copy = restoreAllocator(snapshot, { clock: { now: () => 0 }, random: seededRandom(7) });
    expect(copy.snapshot()).toEqual(snapshot);
    expect(copy.shares()).toEqual(live.shares());
    const offers = (a: HierarchicalAllocator) => a.allocate().offers.map((o) => `${o.frameworkId} ${o.agentId} ${o.resources.toString()}`);
    expect(offers(copy)).toEqual(offers(live));
  });

  it('predicts what a weight change does: 6 agents each without it, 8 and 4 with role a at weight 2', () => {
    const snapshot = cluster().snapshot();
    const { baseline, changed } = whatIf(snapshot, { weights: { a: 2 } }, 3);
    expect(agentsOffered(baseline)).toEqual({ fa: 6, fb: 6 });
    expect(agentsOffered(changed)).toEqual({ fa: 8, fb: 4 });
    // Weighted dominant shares end equal: a holds 8/12 at weight 2, b 4/12.
    expect(changed[2].shares.roles.a).toBeCloseTo(1 / 3, 9);
    expect(changed[2].shares.roles.b).toBeCloseTo(1 / 3, 9);
    // The snapshot itself is unchanged.
    expect(snapshot.weights).toEqual({});
  });

  it('caps what a framework keeps at its demand: it declines the rest, which goes to the other', () => {
    const { changed } = whatIf(cluster().snapshot(), { demand: { fa: { cpus: 3 } } }, 3);
    const kept = changed[2].shares.frameworks;
    expect(kept.fa.a).toBeCloseTo(3 / 12, 9);
    expect(kept.fb.b).toBeCloseTo(9 / 12, 9);
  });

  it('adds and removes agents and frameworks, and names what it cannot find', () => {
    const snapshot = cluster().snapshot();
    const next = applyChange(snapshot, {
      addAgents: [{ hostname: 'big', resources: Resources.fromScalars({ cpus: 8, mem: 8192 }).toJSON(), count: 2 }],
      removeAgents: ['host1', 'agent2'],
      addFrameworks: [{ id: 'fc', roles: ['c'] }],
    });
    expect(next.agents.map((a) => a.hostname)).toEqual([...Array.from({ length: 10 }, (_, i) => `host${i + 3}`), 'big-1', 'big-2']);
    expect(next.frameworks.map((f) => f.id)).toEqual(['fa', 'fb', 'fc']);
    expect(() => applyChange(snapshot, { removeAgents: ['nowhere'] })).toThrow(WhatIfError);
    expect(() => applyChange(snapshot, { demand: { ghost: { cpus: 1 } } })).toThrow("demand: no framework 'ghost'");
  });

  it('writes the snapshot as a scenario that replays with the same offers', () => {
    const snapshot = cluster().snapshot();
    const scenario = snapshotToScenario(snapshot, { id: 'live', cycles: 2 });
    const predicted = simulateCycles(snapshot, 2);
    const expectTotals = predicted.map((c) => ({
      op: 'expectOfferTotals',
      totals: Object.entries(
        c.offers.reduce<Record<string, Resources>>(
          (acc, o) => ({
            ...acc,
            [`${o.frameworkId} ${o.role}`]: (acc[`${o.frameworkId} ${o.role}`] ?? Resources.empty()).plus(Resources.of(o.resources)),
          }),
          {},
        ),
      ).map(([key, resources]) => ({ framework: key.split(' ')[0], role: key.split(' ')[1], resources: resources.toJSON() })),
    }));
    // After each allocate, the offers it made.
    const steps = scenario.steps.flatMap((s) => (s.op === 'allocate' ? [s, expectTotals.shift() ?? {}] : [s]));
    const result = runScenario({ ...scenario, steps });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
  });
});
