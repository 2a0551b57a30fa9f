import * as fs from 'node:fs';
import { groupPids, sample, usedBetween } from './usage';

describe('task usage from procfs', () => {
  it('reads this process: its group, its resident memory and CPU time', () => {
    const pgid = Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2]);
    expect(groupPids(pgid)).toContain(process.pid);
    const s = sample([process.pid], 1_000);
    expect(s.memBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(s.cpuSeconds).toBeGreaterThan(0);
    expect(sample([2 ** 22 + 1], 0)).toEqual({ at: 0, cpuSeconds: 0, memBytes: 0 });
  });

  it('turns two samples into cores and MB, and nothing without time between them', () => {
    const before = { at: 1_000, cpuSeconds: 10, memBytes: 0 };
    expect(usedBetween(before, { at: 3_000, cpuSeconds: 11, memBytes: 64 * 1024 * 1024 })).toEqual({ cpus: 0.5, mem: 64 });
    expect(usedBetween(before, { at: 1_000, cpuSeconds: 11, memBytes: 0 })).toBeUndefined();
  });
});
