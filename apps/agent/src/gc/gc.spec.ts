import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SandboxDisk } from '@arbiter/contracts';
import { type Collectable, GarbageCollector, keptFor, sandboxDisk } from './gc';

const DAY = 24 * 3600 * 1000;

describe('garbage collection', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gc-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const item = (name: string, since: number): Collectable => {
    const p = path.join(dir, name);
    fs.mkdirSync(p);
    fs.writeFileSync(path.join(p, 'stdout'), 'x');
    return { what: name, since, paths: [p] };
  };

  it("reports the sandboxes' disk as the statfs of their folder says, rounded to a thousandth of it, with the GC's headroom", () => {
    const st = fs.statfsSync(dir);
    const disk = sandboxDisk(dir, 0.2);
    if (!disk) throw new Error('no disk reported');
    const step = Math.max(1024 * 1024, Math.floor((st.blocks * st.bsize) / 1000));
    expect(disk.totalBytes % step).toBe(0);
    expect(disk.freeBytes % step).toBe(0);
    expect(st.blocks * st.bsize - disk.totalBytes).toBeLessThan(step);
    expect(Math.abs(st.bavail * st.bsize - disk.freeBytes)).toBeLessThan(2 * step);
    expect(disk.gcHeadroom).toBe(0.2);
    expect(SandboxDisk.safeParse(disk).success).toBe(true);
    expect(sandboxDisk(dir)?.gcHeadroom).toBe(0.1);
    expect(sandboxDisk(path.join(dir, 'missing'))).toBeUndefined();
  });

  it('keeps things for the delay, shorter as the disk fills, nothing at the headroom (as Mesos)', () => {
    expect(keptFor(7 * DAY, 0.1, 0)).toBeCloseTo(6.3 * DAY);
    expect(keptFor(7 * DAY, 0.1, 0.5)).toBeCloseTo(2.8 * DAY);
    expect(keptFor(7 * DAY, 0.1, 0.9)).toBe(0);
    expect(keptFor(7 * DAY, 0.1, 0.95)).toBe(0);
  });

  it('removes what has been kept past the delay and leaves the rest, with the clock advanced', () => {
    let now = 10 * DAY;
    const items = [item('old', 2 * DAY), item('new', 9 * DAY)];
    const gc = new GarbageCollector(
      [() => items.filter((i) => fs.existsSync(i.paths[0]))],
      () => 0,
      { delayMs: 7 * DAY, diskHeadroom: 0 },
      () => now,
    );
    expect(gc.sweep().map((c) => c.what)).toEqual(['old']);
    expect(fs.existsSync(path.join(dir, 'old'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'new'))).toBe(true);
    now = 16 * DAY;
    expect(gc.sweep().map((c) => c.what)).toEqual(['new']);
    expect(gc.collected).toEqual({ items: 2, sweeps: 2 });
  });

  it('removes everything handed over at once when the disk is down to its headroom', () => {
    let usage = 0.2;
    const items = [item('a', 0), item('b', 0)];
    const gc = new GarbageCollector(
      [() => items.filter((i) => fs.existsSync(i.paths[0]))],
      () => usage,
      { delayMs: 7 * DAY },
      () => 1000,
    );
    expect(gc.sweep()).toEqual([]);
    usage = 0.9;
    expect(gc.sweep().map((c) => c.what)).toEqual(['a', 'b']);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
