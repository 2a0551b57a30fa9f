/**
 * Allocator benchmark shapes, after Mesos's HierarchicalAllocator benchmarks. Each shape
 * builds a cluster, then runs `cycles` allocation cycles and reports the time of each
 * `allocate()` call alone (set-up and the framework's answers are not timed).
 */
import { performance } from 'node:perf_hooks';
import { HierarchicalAllocator, parseResources, type Resources } from '../src';

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

export interface Shape {
  name: string;
  describe: string;
  sizes: ShapeOptions[];
  run(options: ShapeOptions): ShapeResult;
}

const LONG_FILTER = 30 * 24 * 3600;

function timeCycles(
  name: string,
  options: ShapeOptions,
  setup: () => { allocator: HierarchicalAllocator; answer: (offers: ReturnType<HierarchicalAllocator['allocate']>['offers']) => void },
  advance: (i: number) => void = () => undefined,
): ShapeResult {
  const t0 = performance.now();
  const { allocator, answer } = setup();
  const setupMs = performance.now() - t0;
  const cycleMs: number[] = [];
  const offers: number[] = [];
  for (let i = 0; i < options.cycles; i++) {
    advance(i);
    const start = performance.now();
    const result = allocator.allocate();
    cycleMs.push(performance.now() - start);
    offers.push(result.offers.length);
    answer(result.offers);
  }
  return { shape: name, ...options, cycleMs, offers, setupMs };
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
  run(options) {
    let now = 0;
    return timeCycles(
      'decline-offers',
      options,
      () => {
        const allocator = new HierarchicalAllocator({ clock: { now: () => now } });
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
        return { allocator, answer };
      },
      () => {
        now += 1;
      },
    );
  },
};

/** One framework per role, every role with a quota of one agent; all offers are returned. */
export const quota: Shape = {
  name: 'quota',
  describe:
    'agents cpus:2;mem:2048;disk:2048; one framework per role; each role guaranteed (and limited to) one agent; offers returned after each cycle',
  sizes: [{ agents: 3000, frameworks: 3000, roles: 3000, cycles: 10 }],
  run(options) {
    return timeCycles('quota', options, () => {
      const allocator = new HierarchicalAllocator({});
      const total = parseResources('cpus:2;mem:2048;disk:2048');
      for (let r = 0; r < options.roles; r++) allocator.setQuota(`role${r}`, { cpus: 2, mem: 2048 }, { cpus: 2, mem: 2048 });
      for (let f = 0; f < options.frameworks; f++) allocator.addFramework(`framework${f}`, [`role${f % options.roles}`]);
      for (let a = 0; a < options.agents; a++) allocator.addAgent(`agent${a}`, total);
      const answer = (offers: Array<{ frameworkId: string; agentId: string; role: string; resources: Resources }>) => {
        for (const o of offers) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
      };
      return { allocator, answer };
    });
  },
};

/** Frameworks spread over role trees of a given depth; all offers are returned. */
export function hierarchy(depth: number): Shape {
  return {
    name: `hierarchy-depth-${depth}`,
    describe: `frameworks in role trees of depth ${depth} (fan-out 4 at the top, chains below); agents cpus:8;mem:16384; offers returned`,
    sizes: [{ agents: 5000, frameworks: 1000, roles: 1000, cycles: 10 }],
    run(options) {
      return timeCycles(`hierarchy-depth-${depth}`, options, () => {
        const allocator = new HierarchicalAllocator({});
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
        return { allocator, answer };
      });
    },
  };
}

export const SHAPES: Shape[] = [declineOffers, quota, hierarchy(3), hierarchy(7), hierarchy(10)];

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
