/**
 * Allocator benchmark shapes, after Mesos's HierarchicalAllocator benchmarks. Each shape
 * builds a cluster, then runs `cycles` allocation cycles and reports the time of each
 * `allocate()` call alone (set-up and the framework's answers are not timed).
 */
import { performance } from 'node:perf_hooks';
import { type AllocatorOptions, type CycleResult, HierarchicalAllocator, parseResources, type Resources } from '../src';

/** What a run may set of the allocator: the reference path, or policies (a sorter or placement module's). */
export type BenchAllocatorOptions = Pick<AllocatorOptions, 'referencePath' | 'sorterFactory' | 'placementFactory'>;

export interface ShapeOptions {
  agents: number;
  frameworks: number;
  roles: number;
  cycles: number;
}

export interface ShapeResult extends ShapeOptions {
  shape: string;
  cycleMs: number[];
  offers: number[];
  setupMs: number;
}

/** A shape's cluster, ready for cycles: `advance` before each cycle, `answer` after it. */
export interface ShapeCluster {
  allocator: HierarchicalAllocator;
  advance(): void;
  answer(offers: CycleResult['offers']): void;
}

export interface Shape {
  name: string;
  describe: string;
  sizes: ShapeOptions[];
  /** Builds the cluster (the same for the same options: the allocator's randomness is seeded). */
  setup(options: ShapeOptions, allocatorOptions?: BenchAllocatorOptions): ShapeCluster;
  run(options: ShapeOptions, allocatorOptions?: BenchAllocatorOptions): ShapeResult;
}

const LONG_FILTER = 30 * 24 * 3600;

function timeCycles(shape: Shape, options: ShapeOptions, allocatorOptions?: BenchAllocatorOptions): ShapeResult {
  const t0 = performance.now();
  const cluster = shape.setup(options, allocatorOptions);
  const setupMs = performance.now() - t0;
  const cycleMs: number[] = [];
  const offers: number[] = [];
  for (let i = 0; i < options.cycles; i++) {
    cluster.advance();
    const start = performance.now();
    const result = cluster.allocator.allocate();
    cycleMs.push(performance.now() - start);
    offers.push(result.offers.length);
    cluster.answer(result.offers);
  }
  return { shape: shape.name, ...options, cycleMs, offers, setupMs };
}

/** One offer as text, for comparing cycles. */
const offerText = (o: CycleResult['offers'][number]) => `${o.frameworkId} ${o.role} ${o.agentId} ${o.resources.toString()}`;

export interface CheckResult {
  shape: string;
  cycles: number;
  offers: number;
  /** The first difference, if any. */
  mismatch?: { cycle: number; index: number; reference?: string; fast?: string };
}

/**
 * Runs the shape on the reference path and on the fast path side by side, cycle by cycle,
 * and compares their offers (and inverse offers) in order. Stops at the first difference.
 */
export function checkShape(shape: Shape, options: ShapeOptions): CheckResult {
  const reference = shape.setup(options, { referencePath: true });
  const fast = shape.setup(options, { referencePath: false });
  let offers = 0;
  for (let cycle = 1; cycle <= options.cycles; cycle++) {
    reference.advance();
    fast.advance();
    const a = reference.allocator.allocate();
    const b = fast.allocator.allocate();
    const left = [...a.offers.map(offerText), ...a.inverseOffers.map((o) => `inverse ${o.frameworkId} ${o.agentId} ${o.start}`)];
    const right = [...b.offers.map(offerText), ...b.inverseOffers.map((o) => `inverse ${o.frameworkId} ${o.agentId} ${o.start}`)];
    for (let index = 0; index < Math.max(left.length, right.length); index++) {
      if (left[index] !== right[index]) {
        return { shape: shape.name, cycles: cycle, offers, mismatch: { cycle, index, reference: left[index], fast: right[index] } };
      }
    }
    offers += a.offers.length;
    reference.answer(a.offers);
    fast.answer(b.offers);
  }
  return { shape: shape.name, cycles: options.cycles, offers };
}

/** Every offer is declined with a long filter; all frameworks share one role. */
export const declineOffers: Shape = {
  name: 'decline-offers',
  describe: 'agents cpus:24;mem:4096;disk:4096;ports:[31000-32000] with cpus:16 in use; one role; every offer declined with a long filter',
  sizes: [
    { agents: 1000, frameworks: 100, roles: 1, cycles: 20 },
    { agents: 5000, frameworks: 500, roles: 1, cycles: 20 },
    { agents: 10000, frameworks: 1000, roles: 1, cycles: 20 },
    { agents: 20000, frameworks: 2000, roles: 1, cycles: 20 },
  ],
  setup(options, allocatorOptions) {
    let now = 0;
    const allocator = new HierarchicalAllocator({ ...allocatorOptions, clock: { now: () => now } });
    const total = parseResources('cpus:24;mem:4096;disk:4096;ports:[31000-32000]');
    const used = parseResources('cpus:16');
    for (let f = 0; f < options.frameworks; f++) allocator.addFramework(`framework${f}`, ['role1']);
    for (let a = 0; a < options.agents; a++) {
      allocator.addAgent(`agent${a}`, total, {
        used: [{ frameworkId: `framework${a % options.frameworks}`, role: 'role1', resources: used }],
      });
    }
    const answer = (offers: Array<{ frameworkId: string; agentId: string; role: string; resources: Resources }>) => {
      for (const o of offers) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources, LONG_FILTER);
    };
    return { allocator, answer, advance: () => (now += 1) };
  },
  run(options, allocatorOptions) {
    return timeCycles(this, options, allocatorOptions);
  },
};

/** One framework per role, every role with a quota of one agent; all offers are returned. */
export const quota: Shape = {
  name: 'quota',
  describe:
    'agents cpus:2;mem:2048;disk:2048; one framework per role; each role guaranteed (and limited to) one agent; offers returned after each cycle',
  sizes: [{ agents: 3000, frameworks: 3000, roles: 3000, cycles: 10 }],
  setup(options, allocatorOptions) {
    const allocator = new HierarchicalAllocator({ ...allocatorOptions });
    const total = parseResources('cpus:2;mem:2048;disk:2048');
    for (let r = 0; r < options.roles; r++) allocator.setQuota(`role${r}`, { cpus: 2, mem: 2048 }, { cpus: 2, mem: 2048 });
    for (let f = 0; f < options.frameworks; f++) allocator.addFramework(`framework${f}`, [`role${f % options.roles}`]);
    for (let a = 0; a < options.agents; a++) allocator.addAgent(`agent${a}`, total);
    const answer = (offers: Array<{ frameworkId: string; agentId: string; role: string; resources: Resources }>) => {
      for (const o of offers) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
    };
    return { allocator, answer, advance: () => undefined };
  },
  run(options, allocatorOptions) {
    return timeCycles(this, options, allocatorOptions);
  },
};

/** Frameworks spread over role trees of a given depth; all offers are returned. */
export function hierarchy(depth: number): Shape {
  return {
    name: `hierarchy-depth-${depth}`,
    describe: `frameworks in role trees of depth ${depth} (fan-out 4 at the top, chains below); agents cpus:8;mem:16384; offers returned`,
    sizes: [{ agents: 5000, frameworks: 1000, roles: 1000, cycles: 10 }],
    setup(options, allocatorOptions) {
      const allocator = new HierarchicalAllocator({ ...allocatorOptions });
      const total = parseResources('cpus:8;mem:16384');
      for (let f = 0; f < options.frameworks; f++) {
        const r = f % options.roles;
        const path = [`t${r % 4}`];
        for (let d = 1; d < depth - 1; d++) path.push(`n${Math.floor(r / 4) % (d + 3)}`);
        path.push(`leaf${r}`);
        allocator.addFramework(`framework${f}`, [path.slice(0, depth).join('/')]);
      }
      for (let a = 0; a < options.agents; a++) allocator.addAgent(`agent${a}`, total);
      const answer = (offers: Array<{ frameworkId: string; agentId: string; role: string; resources: Resources }>) => {
        for (const o of offers) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
      };
      return { allocator, answer, advance: () => undefined };
    },
    run(options, allocatorOptions) {
      return timeCycles(this, options, allocatorOptions);
    },
  };
}

export const SHAPES: Shape[] = [declineOffers, quota, hierarchy(3), hierarchy(7), hierarchy(10)];

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
export { runFragmentation, type FragmentationOptions, type FragmentationResult } from './fragmentation';
