import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { detectRuntime, Runc } from './runc';

describe('the OCI runtime at start', () => {
  it('turns images off with a reason when the agent is not root, without running anything', () => {
    expect(detectRuntime(false)).toEqual({ problem: 'the agent does not run as root, which runc needs' });
  });
});

describe("the OCI runtime's removals", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-runc-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A runtime whose `runc` is a script that waits for a file before it answers. */
  const runtimeWaitingFor = (file: string) => {
    const runc = path.join(dir, 'runc');
    fs.writeFileSync(runc, `#!/bin/sh\nwhile [ ! -e ${file} ]; do sleep 0.02; done\n`, { mode: 0o755 });
    return new Runc({ runc, version: 'test', mount: 'mount', umount: 'umount' }, path.join(dir, 'work'), 'copy');
  };

  it('settles once every removal under way has ended, its bundle gone', async () => {
    const go = path.join(dir, 'go');
    const runtime = runtimeWaitingFor(go);
    fs.mkdirSync(path.join(dir, 'work', 'containers', 'c1'), { recursive: true });
    const removal = runtime.destroy('c1');
    let settled = false;
    const done = runtime.settled(60_000).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    fs.writeFileSync(go, '');
    await done;
    await expect(removal).resolves.toBe(true);
    expect(fs.existsSync(path.join(dir, 'work', 'containers', 'c1'))).toBe(false);
  });

  it('gives up waiting after its time limit when runc hangs', async () => {
    const runtime = runtimeWaitingFor(path.join(dir, 'never'));
    const removal = runtime.destroy('c2');
    const started = Date.now();
    await runtime.settled(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    // The script ends once it sees the file: no runc outlives the test (and its folder's removal).
    fs.writeFileSync(path.join(dir, 'never'), '');
    await removal;
  });
});
