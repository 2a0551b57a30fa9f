/**
 * A cycle run in slices (`cycle` with a pause) decides exactly what the same cycle run in one
 * go decides, and the allocator takes no change until the run is over.
 */
import { AllocatorError, HierarchicalAllocator, parseResources, seededRandom } from '../src';

/** A cluster with quota, a hierarchy, filters and a maintenance window: every stage has work. */
function cluster(seed: number): HierarchicalAllocator {
  const rnd = seededRandom(seed);
  let now = 0;
  const a = new HierarchicalAllocator({ clock: { now: () => (now += 0.01) }, random: seededRandom(seed + 1) });
  for (let i = 0; i < 60; i++)
    a.addAgent(`ag${i}`, parseResources(`cpus:${2 + Math.floor(rnd() * 14)};mem:${1024 * (1 + Math.floor(rnd() * 32))}`));
  const roles = ['web', 'batch', 'ml/train', 'ml/serve'];
  for (let f = 0; f < 12; f++) a.addFramework(`fw${f}`, [roles[f % roles.length]]);
  a.setQuota('web', { cpus: 40 });
  a.setQuota('ml', {}, { cpus: 120 });
  a.setWeight('batch', 3);
  a.updateUnavailability('ag3', 1000);
  return a;
}

/** Runs `a`'s next cycle pausing before every `every`th agent; returns the result and the pauses. */
function sliced(a: HierarchicalAllocator, every: number): { result: ReturnType<HierarchicalAllocator['allocate']>; pauses: number } {
  let asked = 0;
  let pauses = 0;
  const run = a.cycle({ trace: true }, () => ++asked % every === 0);
  for (;;) {
    const step = run.next();
    if (step.done) return { result: step.value, pauses };
    pauses++;
  }
}

describe('a cycle run in slices', () => {
  it.each([1, 3, 17])('offers what the cycle in one go offers, cycle after cycle (a pause every %i agents)', (every) => {
    const whole = cluster(7);
    const inSlices = cluster(7);
    for (let c = 0; c < 6; c++) {
      const expected = whole.allocate({ trace: true });
      const { result, pauses } = sliced(inSlices, every);
      expect(pauses).toBeGreaterThan(0);
      expect(result.offers.map((o) => [o.frameworkId, o.role, o.agentId, o.resources.toString()])).toEqual(
        expected.offers.map((o) => [o.frameworkId, o.role, o.agentId, o.resources.toString()]),
      );
      expect(result.inverseOffers).toEqual(expected.inverseOffers);
      expect(result.trace?.counts).toEqual(expected.trace?.counts);
      // Half of each offer comes back, the other half runs: the next cycle has work again.
      for (const r of [whole, inSlices])
        for (const o of c % 2 ? expected.offers : result.offers) r.recoverResources(o.frameworkId, o.agentId, o.role, o.resources, c % 3);
    }
    expect(inSlices.shares()).toEqual(whole.shares());
  });

  it('refuses every change until the run is over, then takes them again', () => {
    const a = cluster(3);
    const run = a.cycle({}, () => true);
    expect(run.next().done).toBe(false);
    expect(a.cycleRunning).toBe(true);
    const refused = (change: () => void) => {
      try {
        change();
      } catch (err) {
        return err instanceof AllocatorError ? err.code : String(err);
      }
      return 'accepted';
    };
    expect(refused(() => a.addAgent('late', parseResources('cpus:4;mem:4096')))).toBe('CYCLE_RUNNING');
    expect(refused(() => a.removeFramework('fw0'))).toBe('CYCLE_RUNNING');
    expect(refused(() => a.setWeight('web', 2))).toBe('CYCLE_RUNNING');
    expect(refused(() => a.allocate())).toBe('CYCLE_RUNNING');
    // Reads go on: what is offered so far is allocated.
    expect(typeof a.shares().roles).toBe('object');
    let step = run.next();
    while (!step.done) step = run.next();
    expect(a.cycleRunning).toBe(false);
    expect(refused(() => a.addAgent('late', parseResources('cpus:4;mem:4096')))).toBe('accepted');
  });

  it('takes resources back in the middle of a run: an agent not reached yet offers them in the same cycle, and nothing is offered twice', () => {
    const a = new HierarchicalAllocator({ clock: { now: () => 0 }, config: { shuffleAgents: false } });
    for (let i = 0; i < 4; i++) a.addAgent(`ag${i}`, parseResources('cpus:4;mem:4096'));
    a.addFramework('f', ['r']);
    const first = a.allocate().offers;
    expect(first.map((o) => o.agentId)).toEqual(['ag0', 'ag1', 'ag2', 'ag3']);
    // ag0 and ag3 come back while the next cycle is between ag1 and ag2.
    let asked = 0;
    // Asked before each agent as candidates are gathered (4), then in stage 2: the 7th is before ag2.
    const run = a.cycle({}, () => ++asked === 7);
    expect(run.next().done).toBe(false);
    for (const o of [first[0], first[3]]) a.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
    let step = run.next();
    while (!step.done) step = run.next();
    expect(step.value.offers.map((o) => o.agentId)).toEqual(['ag3']);
    expect(a.allocate().offers.map((o) => o.agentId)).toEqual(['ag0']);
    for (let i = 0; i < 4; i++) expect(a.availableOn(`ag${i}`).isEmpty()).toBe(true);
  });

  it('is over when its run is closed early (return), so the allocator is not left refusing changes', () => {
    const a = cluster(5);
    const run = a.cycle({}, () => true);
    run.next();
    run.return(undefined as never);
    expect(a.cycleRunning).toBe(false);
    expect(() => a.setWeight('web', 2)).not.toThrow();
  });
});
