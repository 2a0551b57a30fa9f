import { runFragmentation } from '../bench/fragmentation';
import { AllocatorError, HierarchicalAllocator, parseResources, restoreAllocator, type AllocatorConfig } from '../src';

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

  describe('task size hint (offers cut to fit)', () => {
    const offers = (a: HierarchicalAllocator) => a.allocate().offers.map((o) => [o.frameworkId, o.agentId, o.resources.toString()]);

    it('cuts an offer to a whole number of tasks and offers the rest to the next framework in the same cycle', () => {
      const a = allocator('mesos');
      a.addAgent('ag', parseResources('cpus:8;mem:16384;ports:[31000-31009]'));
      a.addFramework('a-threes', ['r'], { taskSize: { cpus: 3, mem: 4096 } });
      a.addFramework('b-ones', ['r']);
      expect(offers(a)).toEqual([
        ['a-threes', 'ag', 'cpus:6;mem:8192;ports:[31000-31009]'],
        ['b-ones', 'ag', 'cpus:2;mem:8192'],
      ]);
    });

    it('leaves the offer whole without a hint, or when not even one task fits', () => {
      const a = allocator('mesos');
      a.addAgent('ag', parseResources('cpus:2;mem:16384'));
      a.addFramework('big', ['r'], { taskSize: { cpus: 3 } });
      expect(offers(a)).toEqual([['big', 'ag', 'cpus:2;mem:16384']]);
      const b = allocator('mesos');
      b.addAgent('ag', parseResources('cpus:8;mem:16384'));
      b.addFramework('plain', ['r']);
      expect(offers(b)).toEqual([['plain', 'ag', 'cpus:8;mem:16384']]);
    });

    it('is changed or dropped by updateFramework, kept by a snapshot, and refuses amounts that are not positive', () => {
      const a = allocator('mesos');
      a.addAgent('ag', parseResources('cpus:8;mem:16384'));
      a.addFramework('f', ['r'], { taskSize: { cpus: 3 } });
      const restored = restoreAllocator(a.snapshot(), { clock: { now: () => 0 } });
      expect(offers(restored)).toEqual([['f', 'ag', 'cpus:6;mem:16384']]);
      a.updateFramework('f', ['r'], undefined, undefined, { cpus: 4 });
      expect(offers(a)).toEqual([['f', 'ag', 'cpus:8;mem:16384']]);
      a.recoverResources('f', 'ag', 'r', parseResources('cpus:8;mem:16384'));
      a.updateFramework('f', ['r'], undefined, undefined, { mem: 5000 });
      expect(offers(a)).toEqual([['f', 'ag', 'cpus:8;mem:15000']]);
      expect(() => a.addFramework('g', ['r'], { taskSize: { cpus: 0 } })).toThrow(AllocatorError);
      expect(() => a.updateFramework('f', ['r'], undefined, undefined, { cpus: -1 })).toThrow(/positive/);
    });
  });
});
