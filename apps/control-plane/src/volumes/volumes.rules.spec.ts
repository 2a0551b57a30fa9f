import { Resources } from '@arbiter/allocator';
import { reservedDiskFree, volumeUsedBy, withVolumes } from './volumes.rules';

describe('volumes rules', () => {
  const total = Resources.of([
    { name: 'cpus', value: 4 },
    { name: 'disk', value: 1000 },
    { name: 'disk', value: 600, reservation: 'db' },
  ]);

  it('turns reserved disk into the volume piece, and leaves out a volume no reservation covers', () => {
    const out = withVolumes(total, [
      { role: 'db', persistenceId: 'v1', disk: 400 },
      { role: 'db', persistenceId: 'v2', disk: 300 },
    ]);
    expect(out.toJSON()).toEqual(
      expect.arrayContaining([
        { name: 'disk', value: 200, reservation: 'db' },
        { name: 'disk', value: 400, reservation: 'db', volume: 'v1' },
        { name: 'disk', value: 1000 },
      ]),
    );
    expect(out.toJSON().some((e) => e.volume === 'v2')).toBe(false);
  });

  it('counts the reserved disk free: reservations less volumes less plain reserved disk in use', () => {
    const reservations = [{ resources: [{ name: 'disk', value: 600, reservation: 'db' }] }];
    const live = [{ resources: [{ name: 'disk', value: 50, reservation: 'db' }] }, { resources: [{ name: 'disk', value: 10 }] }];
    expect(reservedDiskFree(reservations, [{ role: 'db', persistenceId: 'v1', disk: 400 }], live, 'db')).toBe(150);
    expect(reservedDiskFree(reservations, [], [], 'other')).toBe(0);
  });

  it('finds the frameworks whose tasks use a volume', () => {
    const live = [
      { frameworkId: 'f1', resources: [{ name: 'disk', value: 400, reservation: 'db', volume: 'v1' }] },
      { frameworkId: 'f2', resources: [{ name: 'disk', value: 400, reservation: 'db' }] },
    ];
    expect(volumeUsedBy(live, 'db', 'v1')).toEqual(['f1']);
    expect(volumeUsedBy(live, 'other', 'v1')).toEqual([]);
  });
});
