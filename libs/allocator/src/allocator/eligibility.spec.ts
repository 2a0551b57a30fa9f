/**
 * Refined reservations (Mesos's reservation stacks of two layers or more) are offered only to
 * frameworks with RESERVATION_REFINEMENT, on both cycle paths and in both stages.
 */
import { parseResources } from '../resources';
import { HierarchicalAllocator } from './allocator';
import { restoreAllocator } from './restore';

const REFINED = 'cpus(eng/ml):2;mem(eng/ml):2048';

function allocator(referencePath: boolean): HierarchicalAllocator {
  return new HierarchicalAllocator({ clock: { now: () => 0 }, config: { shuffleAgents: false }, referencePath });
}

const offered = (a: HierarchicalAllocator) =>
  a
    .allocate()
    .offers.map((o) => [o.frameworkId, o.agentId, o.resources.toString()])
    .sort();

describe.each([
  ['fast path', false],
  ['reference path', true],
])('refined reservations (%s)', (_, referencePath) => {
  it('are not offered to a framework without RESERVATION_REFINEMENT, and the decision is traced', () => {
    const a = allocator(referencePath);
    a.addAgent('a1', parseResources(REFINED), { refinedReservations: ['eng/ml'] });
    a.addFramework('old', ['eng/ml']);
    const { offers, trace } = a.allocate({ trace: true });
    expect(offers).toEqual([]);
    expect(trace?.entries).toEqual([
      { reason: 'MISSING_CAPABILITY', agent: 'a1', role: 'eng/ml', framework: 'old', capability: 'RESERVATION_REFINEMENT' },
    ]);
  });

  it('go to a framework with the capability even when one without sorts first', () => {
    const a = allocator(referencePath);
    a.addFramework('old', ['eng/ml']);
    a.addFramework('able', ['eng/ml'], { capabilities: ['RESERVATION_REFINEMENT'] });
    // `able` (first by name) gets a share first, so `old` sorts first for the refined agent.
    a.addAgent('plain', parseResources('cpus:1;mem:512'));
    expect(offered(a)).toEqual([['able', 'plain', 'cpus:1;mem:512']]);
    a.addAgent('a1', parseResources(REFINED), { refinedReservations: ['eng/ml'] });
    expect(offered(a)).toEqual([['able', 'a1', 'cpus(eng/ml):2;mem(eng/ml):2048']]);
  });

  it('are stripped from what a framework without the capability is offered, the rest offered to it', () => {
    const a = allocator(referencePath);
    a.addAgent('a1', parseResources(`cpus:1;mem:512;${REFINED};disk(eng):100`), { refinedReservations: ['eng/ml'] });
    a.addFramework('old', ['eng/ml']);
    // Reserved for `eng` directly, not refined: usable by eng/ml and offered.
    expect(offered(a)).toEqual([['old', 'a1', 'cpus:1;disk(eng):100;mem:512']]);
  });

  it('leave other roles alone: a role whose reservations are not refined is offered them', () => {
    const a = allocator(referencePath);
    a.addAgent('a1', parseResources('cpus(web):2;mem(web):1024;cpus(eng/ml):1;mem(eng/ml):1024'), { refinedReservations: ['eng/ml'] });
    a.addFramework('web', ['web']);
    expect(offered(a)).toEqual([['web', 'a1', 'cpus(web):2;mem(web):1024']]);
  });

  it('follow the agent: once its reservations are no longer refined, the same total is offered', () => {
    const a = allocator(referencePath);
    a.addAgent('a1', parseResources(REFINED), { refinedReservations: ['eng/ml'] });
    a.addFramework('old', ['eng/ml']);
    expect(offered(a)).toEqual([]);
    expect(a.updateAgent('a1', parseResources(REFINED), ['eng/ml'])).toBe(false);
    expect(a.updateAgent('a1', parseResources(REFINED), [])).toBe(true);
    expect(offered(a)).toEqual([['old', 'a1', 'cpus(eng/ml):2;mem(eng/ml):2048']]);
  });

  it('are held back in the quota stage too', () => {
    const a = allocator(referencePath);
    a.setQuota('eng', { cpus: 1 });
    a.addAgent('a1', parseResources(`cpus:1;mem:512;${REFINED}`), { refinedReservations: ['eng/ml'] });
    a.addFramework('old', ['eng/ml']);
    expect(offered(a)).toEqual([['old', 'a1', 'cpus:1;mem:512']]);
  });

  it('survive a snapshot and its restore', () => {
    const a = allocator(referencePath);
    a.addAgent('a1', parseResources(REFINED), { refinedReservations: ['eng/ml'] });
    a.addAgent('a2', parseResources('cpus:1;mem:512'));
    const snapshot = a.snapshot();
    expect(snapshot.agents.map((x) => x.refinedReservations)).toEqual([['eng/ml'], undefined]);
    const b = restoreAllocator(snapshot, { referencePath, clock: { now: () => 0 } });
    b.addFramework('old', ['eng/ml']);
    expect(offered(b)).toEqual([['old', 'a2', 'cpus:1;mem:512']]);
  });
});
