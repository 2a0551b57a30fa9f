/**
 * Property-based tests of the allocator's invariants over random clusters and random event
 * sequences (fast-check). Each property states a rule of Mesos's allocator that must hold
 * whatever happens.
 */
import fc from 'fast-check';
import { DRFSorter, HierarchicalAllocator, Resources, type Offer, type Quantities } from '../src';

/** A resource's amount, 0 when absent: quantities name only what they hold. */
const amount = (q: Partial<Quantities>, name: string): number => q[name] ?? 0;

const ROLES = ['a', 'b', 'c', 'a/x'];

interface Cluster {
  agents: Array<{ cpus: number; mem: number; reservedRole: string | null; reservedCpus: number }>;
  frameworks: Array<{ roles: string[] }>;
}

const clusterArb: fc.Arbitrary<Cluster> = fc.record({
  agents: fc.array(
    fc.record({
      cpus: fc.integer({ min: 1, max: 8 }),
      mem: fc.integer({ min: 1, max: 16 }).map((n) => n * 256),
      reservedRole: fc.constantFrom(null, 'a', 'b', 'a/x'),
      reservedCpus: fc.integer({ min: 1, max: 4 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  frameworks: fc.array(fc.record({ roles: fc.subarray(ROLES, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 4 }),
});

type Event =
  | { kind: 'allocate' }
  | { kind: 'decline'; refuse: number }
  | { kind: 'finish' }
  | { kind: 'suppress'; fw: number; role: number }
  | { kind: 'revive'; fw: number }
  | { kind: 'advance'; seconds: number }
  | { kind: 'quota'; role: string; cpus: number; limit: number };

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.constant<Event>({ kind: 'allocate' }),
  fc.constant<Event>({ kind: 'allocate' }),
  fc.integer({ min: 0, max: 10 }).map<Event>((refuse) => ({ kind: 'decline', refuse })),
  fc.constant<Event>({ kind: 'finish' }),
  fc.record({ fw: fc.nat(3), role: fc.nat(1) }).map<Event>((e) => ({ kind: 'suppress', ...e })),
  fc.nat(3).map<Event>((fw) => ({ kind: 'revive', fw })),
  fc.integer({ min: 1, max: 5 }).map<Event>((seconds) => ({ kind: 'advance', seconds })),
  fc
    .record({ role: fc.constantFrom('a', 'b', 'c'), cpus: fc.integer({ min: 0, max: 6 }), limit: fc.integer({ min: 0, max: 4 }) })
    .map<Event>((q) => ({
      kind: 'quota',
      ...q,
    })),
);

function build(cluster: Cluster, clock: { now: number }, seed: number) {
  const allocator = new HierarchicalAllocator({ clock: { now: () => clock.now }, random: mulberry(seed) });
  const totals = new Map<string, Resources>();
  cluster.frameworks.forEach((f, i) => allocator.addFramework(`fw${i}`, f.roles));
  cluster.agents.forEach((a, i) => {
    const entries = [
      { name: 'cpus', value: a.cpus },
      { name: 'mem', value: a.mem },
      ...(a.reservedRole ? [{ name: 'cpus', value: a.reservedCpus, reservation: a.reservedRole }] : []),
    ];
    const total = Resources.of(entries);
    totals.set(`agent${i}`, total);
    allocator.addAgent(`agent${i}`, total);
  });
  return { allocator, totals };
}

function mulberry(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), t | 1);
    r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** Replays events, checking `check` after every allocation cycle with the offers it made. */
function replay(cluster: Cluster, events: Event[], seed: number, check: (ctx: ReplayContext, offers: Offer[]) => void) {
  const clock = { now: 0 };
  const { allocator, totals } = build(cluster, clock, seed);
  const held: Offer[] = [];
  const suppressed = new Set<string>();
  const filters: Array<{ fw: string; role: string; agent: string; resources: Resources; until: number }> = [];
  const limits = new Map<string, number>();
  const ctx: ReplayContext = { allocator, totals, held, suppressed, filters, clock, limits };
  for (const e of events) {
    switch (e.kind) {
      case 'allocate': {
        const { offers } = allocator.allocate();
        check(ctx, offers);
        held.push(...offers);
        break;
      }
      case 'decline':
      case 'finish':
        for (const o of held.splice(0)) {
          allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources, e.kind === 'decline' ? e.refuse : undefined);
          if (e.kind === 'decline' && e.refuse > 0)
            filters.push({ fw: o.frameworkId, role: o.role, agent: o.agentId, resources: o.resources, until: clock.now + e.refuse });
        }
        break;
      case 'suppress': {
        const fw = cluster.frameworks[e.fw % cluster.frameworks.length];
        const id = `fw${e.fw % cluster.frameworks.length}`;
        const role = fw.roles[e.role % fw.roles.length];
        allocator.suppressOffers(id, [role]);
        suppressed.add(`${id} ${role}`);
        break;
      }
      case 'revive': {
        const id = `fw${e.fw % cluster.frameworks.length}`;
        allocator.reviveOffers(id);
        for (const k of [...suppressed]) if (k.startsWith(`${id} `)) suppressed.delete(k);
        for (let i = filters.length - 1; i >= 0; i--) if (filters[i].fw === id) filters.splice(i, 1);
        break;
      }
      case 'advance':
        clock.now += e.seconds;
        break;
      case 'quota': {
        // Only set a limit at or above what the role already holds: a lower one is honoured
        // from then on but cannot be checked against earlier allocations.
        const consumed = amount(allocator.quotaConsumed(e.role), 'cpus');
        const limit = Math.max(e.limit, Math.ceil(consumed));
        allocator.setQuota(e.role, { cpus: Math.min(e.cpus, limit) }, { cpus: limit });
        limits.set(e.role, limit);
        break;
      }
    }
  }
}

interface ReplayContext {
  allocator: HierarchicalAllocator;
  totals: Map<string, Resources>;
  held: Offer[];
  suppressed: Set<string>;
  filters: Array<{ fw: string; role: string; agent: string; resources: Resources; until: number }>;
  clock: { now: number };
  limits: Map<string, number>;
}

const runs = { numRuns: 150 };
const scenarioArb = fc.tuple(clusterArb, fc.array(eventArb, { minLength: 1, maxLength: 25 }), fc.integer());

describe('allocator invariants', () => {
  it('never over-allocates an agent', () => {
    fc.assert(
      fc.property(scenarioArb, ([cluster, events, seed]) => {
        replay(cluster, events, seed, (ctx) => {
          for (const [agent, total] of ctx.totals) {
            const allocated = ctx.allocator.allocationsOn(agent).reduce((sum, a) => sum.plus(a.resources), Resources.empty());
            expect(total.contains(allocated)).toBe(true);
          }
        });
      }),
      runs,
    );
  });

  it('offers reserved resources only to their role or its descendants', () => {
    fc.assert(
      fc.property(scenarioArb, ([cluster, events, seed]) => {
        replay(cluster, events, seed, (_ctx, offers) => {
          for (const o of offers) {
            for (const e of o.resources.reserved().entries()) {
              expect(o.role === e.reservation || o.role.startsWith(`${e.reservation}/`)).toBe(true);
            }
          }
        });
      }),
      runs,
    );
  });

  it('never exceeds a quota limit', () => {
    fc.assert(
      fc.property(scenarioArb, ([cluster, events, seed]) => {
        replay(cluster, events, seed, (ctx) => {
          for (const [role, limit] of ctx.limits)
            expect(amount(ctx.allocator.quotaConsumed(role), 'cpus')).toBeLessThanOrEqual(limit + 1e-9);
        });
      }),
      runs,
    );
  });

  it('gives nothing to a suppressed role or to a framework filtering the agent', () => {
    fc.assert(
      fc.property(scenarioArb, ([cluster, events, seed]) => {
        replay(cluster, events, seed, (ctx, offers) => {
          for (const o of offers) {
            expect(ctx.suppressed.has(`${o.frameworkId} ${o.role}`)).toBe(false);
            const blocking = ctx.filters.filter(
              (f) =>
                f.fw === o.frameworkId &&
                f.role === o.role &&
                f.agent === o.agentId &&
                ctx.clock.now < f.until &&
                f.resources.contains(o.resources),
            );
            expect(blocking).toEqual([]);
          }
        });
      }),
      runs,
    );
  });

  it('meets every guarantee in one cycle when the free cluster can', () => {
    const quotaCase = fc
      .record({
        agents: fc.array(fc.record({ cpus: fc.integer({ min: 1, max: 8 }), mem: fc.integer({ min: 1, max: 8 }).map((n) => n * 256) }), {
          minLength: 1,
          maxLength: 6,
        }),
        shares: fc.array(
          fc.record({ cpus: fc.double({ min: 0, max: 0.5, noNaN: true }), mem: fc.double({ min: 0, max: 0.5, noNaN: true }) }),
          { minLength: 1, maxLength: 2 },
        ),
        seed: fc.integer(),
      })
      .map(({ agents, shares, seed }) => {
        const cpus = agents.reduce((s, a) => s + a.cpus, 0);
        const mem = agents.reduce((s, a) => s + a.mem, 0);
        // Guarantees in whole cpus and multiples of 256 MB, together within the cluster.
        const guarantees = shares.map((s) => ({ cpus: Math.floor(s.cpus * cpus), mem: Math.floor((s.mem * mem) / 256) * 256 }));
        return { agents, guarantees, seed };
      });
    fc.assert(
      fc.property(quotaCase, ({ agents, guarantees, seed }) => {
        const allocator = new HierarchicalAllocator({ random: mulberry(seed) });
        agents.forEach((a, i) => allocator.addAgent(`agent${i}`, Resources.fromScalars(a)));
        guarantees.forEach((g, i) => {
          allocator.setQuota(`q${i}`, g, g);
          allocator.addFramework(`fw${i}`, [`q${i}`]);
        });
        allocator.addFramework('greedy', ['other']);
        allocator.allocate();
        guarantees.forEach((g, i) => {
          const consumed = allocator.quotaConsumed(`q${i}`);
          expect(amount(consumed, 'cpus')).toBeGreaterThanOrEqual(g.cpus);
          expect(amount(consumed, 'mem')).toBeGreaterThanOrEqual(g.mem);
        });
      }),
      runs,
    );
  });
});

describe('progressive filling with the DRF sorter', () => {
  // Users with divisible demands take one task at a time, the first user in sort order whose
  // next task fits; filling stops when no task fits.
  const fillCase = fc.record({
    capacity: fc.record({ cpus: fc.integer({ min: 4, max: 40 }), mem: fc.integer({ min: 4, max: 40 }) }),
    demands: fc.array(fc.record({ cpus: fc.integer({ min: 1, max: 5 }), mem: fc.integer({ min: 1, max: 5 }) }), {
      minLength: 2,
      maxLength: 4,
    }),
  });

  function fill(capacity: { cpus: number; mem: number }, demands: Array<{ cpus: number; mem: number }>) {
    const sorter = new DRFSorter();
    sorter.addTotal('pool', Resources.fromScalars(capacity).scalarMilli());
    const names = demands.map((_, i) => `u${i}`);
    for (const n of names) {
      sorter.add(n);
      sorter.activate(n);
    }
    const tasks = demands.map(() => 0);
    // For each user, whether its next task still fitted when each other user took its last task.
    const fittedAtLastTaskOf = demands.map(() => demands.map(() => true));
    const free = { ...capacity };
    for (;;) {
      const fits = (i: number) => demands[i].cpus <= free.cpus && demands[i].mem <= free.mem;
      const next = sorter
        .sort()
        .map((n) => Number(n.slice(1)))
        .find(fits);
      if (next === undefined) break;
      demands.forEach((_, i) => (fittedAtLastTaskOf[i][next] = fits(i)));
      tasks[next]++;
      free.cpus -= demands[next].cpus;
      free.mem -= demands[next].mem;
      sorter.allocated(names[next], 'pool', Resources.fromScalars(demands[next]).scalarMilli());
    }
    return { tasks, free, fittedAtLastTaskOf };
  }

  it('is Pareto-efficient: no user can run one more task on what is left', () => {
    fc.assert(
      fc.property(fillCase, ({ capacity, demands }) => {
        const { free } = fill(capacity, demands);
        for (const d of demands) expect(d.cpus <= free.cpus && d.mem <= free.mem).toBe(false);
      }),
      runs,
    );
  });

  // DRF's envy-freeness with discrete tasks: take away the last task of another user j, and user i
  // could not run more tasks on what j holds than i runs itself. It holds for every pair where
  // i's next task still fitted when j took its last one (j was then sorted first, so j's dominant
  // share before that task was at most i's). A user whose task stopped fitting can be overtaken.
  it("is envy-free within one task: no unblocked user could run more tasks on another user's allocation less one task", () => {
    fc.assert(
      fc.property(fillCase, ({ capacity, demands }) => {
        const { tasks, fittedAtLastTaskOf } = fill(capacity, demands);
        demands.forEach((di, i) => {
          demands.forEach((dj, j) => {
            if (i === j || tasks[j] === 0 || !fittedAtLastTaskOf[i][j]) return;
            const held = { cpus: (tasks[j] - 1) * dj.cpus, mem: (tasks[j] - 1) * dj.mem };
            const couldRun = Math.min(Math.floor(held.cpus / di.cpus), Math.floor(held.mem / di.mem));
            expect(couldRun).toBeLessThanOrEqual(tasks[i]);
          });
        });
      }),
      runs,
    );
  });
});

describe('DRF sorter order kept incrementally', () => {
  // Whatever happens, the order kept up to date change by change (and read one client at a
  // time through a cursor) is the order a sorter given the same changes and asked once has.
  type SorterOp =
    { kind: 'allocated' | 'unallocated'; client: number; cpus: number; mem: number } | { kind: 'activate' | 'deactivate'; client: number };
  const opArb: fc.Arbitrary<SorterOp> = fc.oneof(
    fc
      .record({ client: fc.nat(999), cpus: fc.integer({ min: 1, max: 4 }), mem: fc.integer({ min: 1, max: 4 }) })
      .map<SorterOp>((o) => ({ kind: 'allocated', ...o })),
    fc
      .record({ client: fc.nat(999), cpus: fc.integer({ min: 1, max: 4 }), mem: fc.integer({ min: 1, max: 4 }) })
      .map<SorterOp>((o) => ({ kind: 'unallocated', ...o })),
    fc.nat(999).map<SorterOp>((client) => ({ kind: 'activate', client })),
    fc.nat(999).map<SorterOp>((client) => ({ kind: 'deactivate', client })),
  );
  const FLAT = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const NESTED = ['a', 'a/x', 'a/y', 'b', 'b/x/p', 'b/x/q', 'c', 'c/z'];
  // Enough clients for the flat order's chunks (64 leaves) to fill, split and empty.
  const MANY = Array.from({ length: 300 }, (_, i) => `c${String(i).padStart(3, '0')}`);

  function apply(sorter: DRFSorter, clients: string[], op: SorterOp): void {
    const client = clients[op.client % clients.length];
    if (op.kind === 'activate') sorter.activate(client);
    else if (op.kind === 'deactivate') sorter.deactivate(client);
    else if ('cpus' in op) {
      const q = Resources.fromScalars({ cpus: op.cpus, mem: op.mem }).scalarMilli();
      if (op.kind === 'allocated') sorter.allocated(client, 'agent', q);
      else sorter.unallocated(client, 'agent', q);
    }
  }

  function build(clients: string[]): DRFSorter {
    const sorter = new DRFSorter();
    sorter.addTotal('agent', Resources.fromScalars({ cpus: 100, mem: 100 }).scalarMilli());
    for (const c of clients) {
      sorter.add(c);
      sorter.activate(c);
    }
    return sorter;
  }

  it.each([
    ['flat', FLAT],
    ['nested', NESTED],
  ])('%s: the incremental order and the cursor match an order computed once', (_kind, clients) => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const incremental = build(clients);
        incremental.sort();
        const done: SorterOp[] = [];
        for (const op of ops) {
          apply(incremental, clients, op);
          done.push(op);
          const once = build(clients);
          for (const d of done) apply(once, clients, d);
          const expected = [...once.sort()];
          expect([...incremental.sort()]).toEqual(expected);
          const cursor = incremental.cursor();
          const read: string[] = [];
          for (let c = cursor.next(); c !== undefined; c = cursor.next()) read.push(c);
          expect(read).toEqual(expected);
        }
      }),
      runs,
    );
  });

  it('flat with many clients: every client allocated in turn, twice, keeps the order (chunks empty and split)', () => {
    const clients = MANY.slice(0, 200);
    const incremental = build(clients);
    const done: SorterOp[] = [];
    for (let round = 0; round < 2; round++) {
      for (let c = 0; c < clients.length; c++) {
        incremental.cursor();
        const op: SorterOp = { kind: 'allocated', client: c, cpus: 1 + ((c * 7) % 3), mem: 1 + ((c * 5) % 4) };
        apply(incremental, clients, op);
        done.push(op);
        if (c % 40 !== 39) continue;
        const once = build(clients);
        for (const d of done) apply(once, clients, d);
        expect([...incremental.sort()]).toEqual([...once.sort()]);
      }
    }
  });

  it('flat with many clients: the incremental order and the cursor match an order computed once', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 100, maxLength: 400 }), (ops) => {
        const incremental = build(MANY);
        incremental.sort();
        ops.forEach((op, n) => {
          apply(incremental, MANY, op);
          incremental.cursor(); // keeps the order cached, so that the next change moves a client in it
          if (n % 50 !== 49 && n !== ops.length - 1) return;
          const once = build(MANY);
          for (const d of ops.slice(0, n + 1)) apply(once, MANY, d);
          const expected = [...once.sort()];
          const cursor = incremental.cursor();
          const read: string[] = [];
          for (let c = cursor.next(); c !== undefined; c = cursor.next()) read.push(c);
          expect(read).toEqual(expected);
          expect([...incremental.sort()]).toEqual(expected);
        });
      }),
      { numRuns: 25 },
    );
  });
});
