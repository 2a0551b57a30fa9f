import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT_STATUS_FILE } from './launcher';
import { Sandboxes } from './sandbox';

describe('sandboxes', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-sandbox-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("prepares a task's sandbox closed to others, its parents passable only, without a stale exit status", () => {
    const sandboxes = new Sandboxes(dir, null, '/nonexistent');
    expect(sandboxes.root).toBe(dir);
    const sandbox = sandboxes.pathOf('fw', 'task');
    fs.mkdirSync(sandbox, { recursive: true });
    fs.writeFileSync(path.join(sandbox, EXIT_STATUS_FILE), '3\n');
    expect(sandboxes.exitStatus(sandbox)).toBe(3);
    sandboxes.prepare(sandbox, { name: 'daemon', uid: 1, gid: 1, gids: [1] });
    expect(sandboxes.exitStatus(sandbox)).toBeUndefined();
    expect(fs.statSync(sandbox)).toMatchObject({ uid: 1, gid: 1 });
    expect(fs.statSync(sandbox).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(sandbox)).mode & 0o777).toBe(0o711);
    expect(fs.statSync(path.join(dir, 'frameworks')).mode & 0o777).toBe(0o711);
  });

  it('keeps every task id inside the sandboxes', () => {
    const sandboxes = new Sandboxes(dir, null, '/nonexistent');
    for (const id of ['.', '..', '../../etc', 'a/b'])
      expect(path.relative(path.join(dir, 'frameworks'), sandboxes.pathOf('fw', id)).startsWith('..')).toBe(false);
  });
});
