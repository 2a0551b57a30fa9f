import { runFragmentation } from '../bench/fragmentation';
import { HierarchicalAllocator, parseResources, type AllocatorConfig } from '../src';

function allocator(placement: AllocatorConfig['placement']) {
  return new HierarchicalAllocator({ clock: { now: () => 0 }, config: { placement, shuffleAgents: false } });
}

describe('placement', () => {
  it('pack offers the most used agents first, then the smallest free ones, keeping big free machines for last', () => {
    const a = allocator('pack');
    a.addFramework('other', ['r'], { active: false });
    a.addAgent('big-free', parseResources('cpus:32;mem:131072'));
    a.addAgent('small-free', parseResources('cpus:8;mem:32768'));
    a.addAgent('big-busy', parseResources('cpus:32;mem:131072'), {
      used: [{ frameworkId: 'other', role: 'r', resources: parseResources('cpus:24;mem:1024') }],
    });
    a.addAgent('small-half', parseResources('cpus:8;mem:32768'), {
      used: [{ frameworkId: 'other', role: 'r', resources: parseResources('cpus:2;mem:1024') }],
    });
    a.addFramework('f', ['r']);
    expect(a.allocate().offers.map((o) => o.agentId)).toEqual(['big-busy', 'small-half', 'small-free', 'big-free']);
  });

  it('mesos keeps its order (here insertion order, unshuffled)', () => {
    const a = allocator('mesos');
    for (const id of ['big-free', 'small-free'])
      a.addAgent(id, parseResources(id.startsWith('big') ? 'cpus:32;mem:131072' : 'cpus:8;mem:32768'));
    a.addFramework('f', ['r']);
    expect(a.allocate().offers.map((o) => o.agentId)).toEqual(['big-free', 'small-free']);
  });

  it('places more large tasks than mesos on the fragmentation workload, with no larger fairness error', () => {
    for (const seed of [1, 2, 3]) {
      const mesos = runFragmentation({ placement: 'mesos', cycles: 300, seed });
      const pack = runFragmentation({ placement: 'pack', cycles: 300, seed });
      expect(mesos.largeArrived).toBe(pack.largeArrived);
      expect(pack.largePlaced).toBeGreaterThan(mesos.largePlaced);
      expect(pack.fairnessError).toBeLessThanOrEqual(mesos.fairnessError);
    }
  });
});
