import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogRotation, rotate } from './log-rotation';

describe('log rotation', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-logs-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('copies a log past its size to .1, shifts older ones, drops the oldest past the kept count, and truncates in place', () => {
    const log = path.join(dir, 'stdout');
    const fd = fs.openSync(log, 'a');
    for (const round of ['a', 'b', 'c', 'd']) {
      fs.writeSync(fd, round.repeat(20));
      expect(rotate(log, 10, 2)).toBe(true);
    }
    // The writer keeps its descriptor: in append mode it writes at the start of the truncated file.
    fs.writeSync(fd, 'tail');
    fs.closeSync(fd);
    expect(fs.readFileSync(log, 'utf8')).toBe('tail');
    expect(fs.readFileSync(`${log}.1`, 'utf8')).toBe('d'.repeat(20));
    expect(fs.readFileSync(`${log}.2`, 'utf8')).toBe('c'.repeat(20));
    expect(fs.existsSync(`${log}.3`)).toBe(false);
    expect(rotate(log, 10, 2)).toBe(false);
  });

  it('leaves a link alone: a task cannot turn the rotation onto another file', () => {
    const target = path.join(dir, 'precious');
    fs.writeFileSync(target, 'x'.repeat(100));
    const sandbox = path.join(dir, 'sandbox');
    fs.mkdirSync(sandbox);
    fs.symlinkSync(target, path.join(sandbox, 'stdout'));
    expect(rotate(path.join(sandbox, 'stdout'), 10, 2, sandbox)).toBe(false);
    expect(fs.readFileSync(target, 'utf8')).toHaveLength(100);
    // Nor a linked folder out of the sandbox.
    fs.mkdirSync(path.join(dir, 'elsewhere'));
    fs.writeFileSync(path.join(dir, 'elsewhere', 'stdout'), 'y'.repeat(100));
    fs.mkdirSync(path.join(sandbox, 'tasks'));
    fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(sandbox, 'tasks', 't'));
    expect(rotate(path.join(sandbox, 'tasks', 't', 'stdout'), 10, 2, sandbox)).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'elsewhere', 'stdout'), 'utf8')).toHaveLength(100);
  });

  it("checks the running sandboxes' logs and their tasks' folders", async () => {
    const sandbox = path.join(dir, 'sandbox');
    fs.mkdirSync(path.join(sandbox, 'tasks', 't1'), { recursive: true });
    fs.writeFileSync(path.join(sandbox, 'stderr'), 'e'.repeat(50));
    fs.writeFileSync(path.join(sandbox, 'tasks', 't1', 'stdout'), 'o'.repeat(50));
    const rotation = new LogRotation(() => [sandbox], { maxBytes: 10, keep: 1, intervalMs: 60_000 });
    await rotation.check();
    rotation.stop();
    expect(fs.statSync(path.join(sandbox, 'stderr')).size).toBe(0);
    expect(fs.statSync(path.join(sandbox, 'stderr.1')).size).toBe(50);
    expect(fs.statSync(path.join(sandbox, 'tasks', 't1', 'stdout.1')).size).toBe(50);
  });
});
