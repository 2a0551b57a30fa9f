import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnsDuring } from '../../../test/support/event-loop';
import { diskUsage, DiskUsage } from './disk';

describe('disk/du isolator', () => {
  let sandbox: string;
  beforeEach(() => {
    sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-du-'));
    fs.mkdirSync(path.join(sandbox, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(sandbox, 'a', 'b', 'big'), Buffer.alloc(3 * 1024 * 1024, 1));
    fs.symlinkSync('/usr', path.join(sandbox, 'link'));
  });
  afterEach(() => fs.rmSync(sandbox, { recursive: true, force: true }));

  it('counts allocated blocks, nested folders included, symlinks not followed', async () => {
    const used = await diskUsage(sandbox);
    expect(used).toBeGreaterThanOrEqual(3 * 1024 * 1024);
    expect(used).toBeLessThan(4 * 1024 * 1024);
  });

  it('reports a sandbox over its disk, and nothing for one within it or without a limit', async () => {
    const du = new DiskUsage();
    const container = (diskBytes?: number) => ({ name: 'c', sandbox, limits: { pids: 1, diskBytes } });
    expect(await du.watch(container())).toBeUndefined();
    expect(await du.watch(container(4 * 1024 * 1024))).toBeUndefined();
    expect(await du.watch(container(2 * 1024 * 1024))).toEqual({
      reason: 'REASON_CONTAINER_LIMITATION_DISK',
      message: 'disk limit exceeded: the sandbox uses 3 MB of 2 MB',
    });
  });

  it('measures a sandbox of many files while the event loop keeps turning, and counts every file', async () => {
    const many = path.join(sandbox, 'many');
    fs.mkdirSync(many);
    for (let i = 0; i < 2_000; i++) fs.writeFileSync(path.join(many, String(i)), 'x');
    const { result: used, turns } = await turnsDuring(() => diskUsage(sandbox));
    // Each file takes at least one block.
    expect(used).toBeGreaterThanOrEqual(3 * 1024 * 1024 + 2_000 * 512);
    // A blocking walk lets the loop turn once at most; this one turns at least once per batch of entries.
    expect(turns).toBeGreaterThan(2_000 / 128);
    // Thousands of files on a busy disk: longer than a unit test's usual five seconds.
  }, 30_000);
});
