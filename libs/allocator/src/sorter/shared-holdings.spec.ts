import { HierarchicalAllocator } from '../allocator';
import { Resources } from '../resources';
import { DRFSorter } from './drf-sorter';

const VOLUME = Resources.of([{ name: 'disk', value: 50, reservation: 'r', shared: true, volume: 'v1' }]);
const PLAIN = Resources.fromScalars({ cpus: 1, mem: 100 });

describe('shared resources in the DRF sorter (Mesos counts each once per client and agent)', () => {
  const sorter = () => {
    const s = new DRFSorter();
    s.addTotal('ag', Resources.fromScalars({ cpus: 10, mem: 1000, disk: 100 }).scalarMilli());
    s.add('a');
    s.activate('a');
    return s;
  };
  const give = (s: DRFSorter, r: Resources, sign: 1 | -1) =>
    sign > 0 ? s.allocated('a', 'ag', r.scalarMilli(), r.sharedScalars()) : s.unallocated('a', 'ag', r.scalarMilli(), r.sharedScalars());

  it('counts a second copy of a held volume as nothing, and releases it with the last copy', () => {
    const s = sorter();
    give(s, PLAIN.plus(VOLUME), 1);
    expect(s.share('a')).toBeCloseTo(0.5);
    give(s, VOLUME, 1);
    expect(s.allocationQuantities('a').get('disk')).toBe(50_000);
    give(s, VOLUME, -1);
    expect(s.share('a')).toBeCloseTo(0.5);
    give(s, VOLUME, -1);
    expect(s.share('a')).toBeCloseTo(0.1);
    expect(s.allocationQuantities('a').get('disk')).toBeUndefined();
  });

  it('counts the volume again on another agent, and forgets a removed client', () => {
    const s = sorter();
    give(s, VOLUME, 1);
    s.allocated('a', 'other', VOLUME.scalarMilli(), VOLUME.sharedScalars());
    expect(s.allocationQuantities('a').get('disk')).toBe(100_000);
    s.remove('a');
    s.add('a');
    give(s, VOLUME, 1);
    expect(s.allocationQuantities('a').get('disk')).toBe(50_000);
  });

  it('in the allocator: a role and a framework offered the volume twice count it once', () => {
    let now = 0;
    const allocator = new HierarchicalAllocator({ clock: { now: () => now } });
    allocator.addAgent('ag', Resources.fromScalars({ cpus: 4, mem: 400 }).plus(VOLUME));
    allocator.addFramework('f', ['r'], { capabilities: ['SHARED_RESOURCES'] });
    allocator.allocate();
    allocator.recoverResources('f', 'ag', 'r', Resources.fromScalars({ cpus: 2, mem: 200 }));
    const before = allocator.shares();
    now += 10;
    const offers = allocator.allocate().offers;
    expect(offers.map((o) => o.resources.sharedScalars().length)).toEqual([1]);
    expect(allocator.allocationsOn('ag')[0].resources.toString()).toContain('disk(r):50{shared:v1};disk(r):50{shared:v1}');
    expect(allocator.shares()).toEqual(before);
  });
});
