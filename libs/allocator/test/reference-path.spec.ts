/**
 * The allocator's fast path (cursors over the sorters, offer filters remembered between
 * cycles, roles that passed an agent by skipped) makes the same offers, inverse offers and
 * decision traces as its reference path, whatever happens between cycles.
 */
import fc from 'fast-check';
import { HierarchicalAllocator, parseResources, type CycleResult } from '../src';

const ROLES = ['a', 'b', 'a/x', 'a/x/y', 'c'];
const AGENT_KINDS = [
  'cpus:4;mem:1024',
  'cpus:8;mem:2048;ports:[31000-31010]',
  'cpus:2;mem:512;gpus:1',
  'cpus:4;mem:1024;cpus(a):2',
  'cpus:4;mem:1024;cpus(a/x):1;mem(b):256',
];

type Event =
  | { kind: 'allocate'; trace: boolean }
  | { kind: 'decline'; refuse: number; every: number; offset: number }
  | { kind: 'finish' }
  | { kind: 'suppress'; fw: number; role: number }
  | { kind: 'revive'; fw: number }
  | { kind: 'advance'; seconds: number }
  | { kind: 'quota'; role: string; cpus: number; limit: number }
  | { kind: 'removeQuota'; role: string }
  | { kind: 'deactivateFramework' | 'activateFramework'; fw: number }
  | { kind: 'updateFramework'; fw: number; roles: string[]; gpu: boolean }
  | { kind: 'addFramework'; roles: string[] }
  | { kind: 'removeAgent' | 'readdAgent'; agent: number }
  | { kind: 'weight'; role: string; weight: number }
  | { kind: 'growAgent'; agent: number };

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  { arbitrary: fc.boolean().map<Event>((trace) => ({ kind: 'allocate', trace })), weight: 8 },
  {
    arbitrary: fc
      .record({ refuse: fc.integer({ min: 0, max: 6 }), every: fc.integer({ min: 1, max: 3 }), offset: fc.nat(2) })
      .map<Event>((e) => ({ kind: 'decline', ...e })),
    weight: 6,
  },
  { arbitrary: fc.constant<Event>({ kind: 'finish' }), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 3 }).map<Event>((seconds) => ({ kind: 'advance', seconds })), weight: 3 },
  fc.record({ fw: fc.nat(5), role: fc.nat(2) }).map<Event>((e) => ({ kind: 'suppress', ...e })),
  fc.nat(5).map<Event>((fw) => ({ kind: 'revive', fw })),
  fc.integer({ min: 1, max: 4 }).map<Event>((seconds) => ({ kind: 'advance', seconds })),
  fc
    .record({ role: fc.constantFrom('a', 'b', 'c'), cpus: fc.integer({ min: 0, max: 6 }), limit: fc.integer({ min: 0, max: 8 }) })
    .map<Event>((q) => ({ kind: 'quota', ...q })),
  fc.constantFrom('a', 'b', 'c').map<Event>((role) => ({ kind: 'removeQuota', role })),
  fc.nat(5).map<Event>((fw) => ({ kind: 'deactivateFramework', fw })),
  fc.nat(5).map<Event>((fw) => ({ kind: 'activateFramework', fw })),
  fc
    .record({ fw: fc.nat(5), roles: fc.subarray(ROLES, { minLength: 1, maxLength: 2 }), gpu: fc.boolean() })
    .map<Event>((e) => ({ kind: 'updateFramework', ...e })),
  fc.subarray(ROLES, { minLength: 1, maxLength: 2 }).map<Event>((roles) => ({ kind: 'addFramework', roles })),
  fc.nat(7).map<Event>((agent) => ({ kind: 'removeAgent', agent })),
  fc.nat(7).map<Event>((agent) => ({ kind: 'readdAgent', agent })),
  fc.record({ role: fc.constantFrom(...ROLES), weight: fc.integer({ min: 1, max: 3 }) }).map<Event>((e) => ({ kind: 'weight', ...e })),
  fc.nat(7).map<Event>((agent) => ({ kind: 'growAgent', agent })),
);

interface Cluster {
  agents: number[];
  /** `minCpus`: the framework's own minimum allocatable cpus in each of its roles. */
  frameworks: Array<{ roles: string[]; gpu: boolean; minCpus?: number }>;
  seed: number;
  /** Trace entries kept per cycle (small: traces fill up, and only their counts grow). */
  traceLimit?: number;
}

const clusterArb: fc.Arbitrary<Cluster> = fc.record({
  agents: fc.array(fc.nat(AGENT_KINDS.length - 1), { minLength: 1, maxLength: 8 }),
  frameworks: fc.array(
    fc.record({
      roles: fc.subarray(ROLES, { minLength: 1, maxLength: 2 }),
      gpu: fc.boolean(),
      minCpus: fc.constantFrom(undefined, 3, 6),
    }),
    {
      minLength: 1,
      maxLength: 5,
    },
  ),
  seed: fc.integer(),
  traceLimit: fc.constantFrom(1, 4, 1000),
});

function text(result: CycleResult): unknown {
  return {
    offers: result.offers.map((o) => `${o.frameworkId} ${o.role} ${o.agentId} ${o.resources.toString()}`),
    inverseOffers: result.inverseOffers,
    trace: result.trace,
  };
}

/** Plays the events on an allocator; returns every cycle's result as text. */
function play(cluster: Cluster, events: Event[], referencePath: boolean): unknown[] {
  const clock = { now: 0 };
  const allocator = new HierarchicalAllocator({
    clock: { now: () => clock.now },
    random: (() => {
      let t = cluster.seed >>> 0;
      return () => {
        t = (t * 1103515245 + 12345) >>> 0;
        return t / 4294967296;
      };
    })(),
    referencePath,
    config: { traceLimit: cluster.traceLimit ?? 1000 },
  });
  let frameworks = 0;
  const addFramework = (roles: string[], gpu: boolean, minCpus?: number) =>
    allocator.addFramework(`fw${frameworks++}`, roles, {
      capabilities: gpu ? ['GPU_RESOURCES'] : [],
      offerFilters: minCpus === undefined ? undefined : Object.fromEntries(roles.map((r) => [r, [{ cpus: minCpus }]])),
    });
  cluster.frameworks.forEach((f) => addFramework(f.roles, f.gpu, f.minCpus));
  const agentTotal = (i: number) => parseResources(AGENT_KINDS[cluster.agents[i % cluster.agents.length]]);
  cluster.agents.forEach((_, i) => allocator.addAgent(`agent${i}`, agentTotal(i)));
  const fwId = (n: number) => `fw${n % frameworks}`;
  let held: CycleResult['offers'] = [];
  const out: unknown[] = [];
  for (const e of events) {
    switch (e.kind) {
      case 'allocate': {
        const result = allocator.allocate({ trace: e.trace });
        out.push(text(result));
        held.push(...result.offers);
        break;
      }
      case 'decline':
        held.forEach((o, i) => {
          if ((i + e.offset) % e.every === 0) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources, e.refuse);
        });
        held = held.filter((_, i) => (i + e.offset) % e.every !== 0);
        break;
      case 'finish':
        for (const o of held) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
        held = [];
        break;
      case 'suppress':
        allocator.suppressOffers(fwId(e.fw), [ROLES[e.role]]);
        break;
      case 'revive':
        allocator.reviveOffers(fwId(e.fw));
        break;
      case 'advance':
        clock.now += e.seconds;
        break;
      case 'quota':
        allocator.setQuota(e.role, { cpus: Math.min(e.cpus, e.limit) }, { cpus: e.limit });
        break;
      case 'removeQuota':
        allocator.removeQuota(e.role);
        break;
      case 'deactivateFramework':
        allocator.deactivateFramework(fwId(e.fw));
        break;
      case 'activateFramework':
        allocator.activateFramework(fwId(e.fw));
        break;
      case 'updateFramework':
        allocator.updateFramework(fwId(e.fw), e.roles, e.gpu ? ['GPU_RESOURCES'] : []);
        break;
      case 'addFramework':
        addFramework(e.roles, false);
        break;
      case 'removeAgent': {
        const id = `agent${e.agent % cluster.agents.length}`;
        if (!allocator.hasAgent(id)) break;
        allocator.removeAgent(id);
        held = held.filter((o) => o.agentId !== id);
        break;
      }
      case 'readdAgent': {
        const i = e.agent % cluster.agents.length;
        if (!allocator.hasAgent(`agent${i}`)) allocator.addAgent(`agent${i}`, agentTotal(i));
        break;
      }
      case 'growAgent': {
        const id = `agent${e.agent % cluster.agents.length}`;
        if (allocator.hasAgent(id))
          allocator.updateAgent(
            id,
            allocator
              .availableOn(id)
              .plus(parseResources('cpus:1'))
              .plus(held.filter((o) => o.agentId === id).reduce((sum, o) => sum.plus(o.resources), parseResources(''))),
          );
        break;
      }
      case 'weight':
        allocator.setWeight(e.role, e.weight);
        break;
    }
  }
  return out;
}

describe('reference path and fast path', () => {
  it('make the same offers and traces, cycle by cycle', () => {
    fc.assert(
      fc.property(clusterArb, fc.array(eventArb, { minLength: 1, maxLength: 60 }), (cluster, events) => {
        expect(play(cluster, events, false)).toEqual(play(cluster, events, true));
      }),
      { numRuns: 300 },
    );
  });

  it('keep making the same offers while declines with long filters pile up', () => {
    const cluster = {
      agents: [0, 1, 2, 0, 1],
      frameworks: [
        { roles: ['a'], gpu: false },
        { roles: ['a', 'b'], gpu: true },
      ],
      seed: 7,
      traceLimit: 2,
    };
    const events: Event[] = [{ kind: 'addFramework', roles: ['a'] }];
    for (let i = 0; i < 12; i++) {
      events.push(
        { kind: 'allocate', trace: i % 3 === 0 },
        { kind: 'decline', refuse: 5, every: 1, offset: 0 },
        { kind: 'advance', seconds: 1 },
      );
      if (i === 8) events.push({ kind: 'revive', fw: 1 });
    }
    const fast = play(cluster, events, false);
    expect(fast).toEqual(play(cluster, events, true));
    // Some cycles made offers and some were fully filtered.
    const counts = fast.map((c) => (c as { offers: string[] }).offers.length);
    expect(counts.some((n) => n > 0)).toBe(true);
    expect(counts.some((n) => n === 0)).toBe(true);
  });

  it.each<[string, Event[]]>([
    ['a revive', [{ kind: 'revive', fw: 0 }]],
    ['a framework added', [{ kind: 'addFramework', roles: ['a'] }]],
    [
      'a framework deactivated and activated again',
      [
        { kind: 'deactivateFramework', fw: 0 },
        { kind: 'activateFramework', fw: 0 },
      ],
    ],
    ['a framework given the GPU capability', [{ kind: 'updateFramework', fw: 0, roles: ['a'], gpu: true }]],
    ['an agent grown', [{ kind: 'growAgent', agent: 0 }]],
    ['the filters ending', [{ kind: 'advance', seconds: 10 }]],
  ])('offer a filtered agent again after %s', (_what, change) => {
    // One framework, agents with and without a GPU; every offer declined for 5 seconds.
    const cluster: Cluster = { agents: [0, 2], frameworks: [{ roles: ['a'], gpu: false }], seed: 3 };
    const round: Event[] = [
      { kind: 'allocate', trace: false },
      { kind: 'decline', refuse: 5, every: 1, offset: 0 },
      { kind: 'advance', seconds: 1 },
    ];
    const events = [...round, ...round, ...change, ...round, ...round];
    const fast = play(cluster, events, false);
    expect(fast).toEqual(play(cluster, events, true));
    // The second cycle found the agents filtered; the one after the change did not.
    const offers = fast.map((c) => (c as { offers: string[] }).offers.length);
    expect(offers[1]).toBe(0);
    expect(offers[offers.length - 2]).toBeGreaterThan(0);
  });

  it('see what is left on an agent after one of its offers comes back and another stays out', () => {
    // Two offers on one agent (its reservation for b goes to b), then each one declined alone.
    const cluster = {
      agents: [4],
      frameworks: [
        { roles: ['a'], gpu: false },
        { roles: ['b'], gpu: false },
      ],
      seed: 1,
    };
    for (const offset of [0, 1]) {
      const events: Event[] = [];
      for (let i = 0; i < 4; i++) events.push({ kind: 'allocate', trace: false }, { kind: 'decline', refuse: 0, every: 2, offset });
      const fast = play(cluster, events, false);
      expect(fast).toEqual(play(cluster, events, true));
      expect((fast[0] as { offers: string[] }).offers).toHaveLength(2);
    }
  });
});
