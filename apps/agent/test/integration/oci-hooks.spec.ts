/**
 * runc's hooks as the agent configures them (oci-spec.ts), run as runc runs them: a real process
 * given the container's state on its stdin.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ociConfig } from '../../src/containerizer/runtime/oci-spec';

describe("the container's poststart hook", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oci-hooks-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the state runc writes to it, however late, before it marks the container started (runc forwards its SIGPIPE to the task)', async () => {
    const mark = path.join(dir, 'started');
    const base = { rootfs: '/r', env: {}, uid: 1000, gid: 1000, gids: [], cgroupsPath: 'arbiter-x', mounts: [], image: { env: [] } };
    const config = ociConfig({ ...base, command: { shell: 'true' }, startedMark: mark }) as {
      hooks: { poststart: Array<{ path: string; args: string[] }> };
    };
    const [hook] = config.hooks.poststart;
    const child = spawn(hook.path, hook.args.slice(1), { argv0: hook.args[0], stdio: ['pipe', 'ignore', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // runc on a loaded machine: the state comes once the hook has exited, if it does so without reading it.
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 500))]);
    const written = await new Promise<string>((resolve) => {
      child.stdin.once('error', (e) => resolve(e.message));
      child.stdin.end(JSON.stringify({ ociVersion: '1.0.2', id: 'c', status: 'running', pid: 42, bundle: dir }), (e?: Error | null) =>
        resolve(e ? e.message : 'written'),
      );
    });
    expect([written, await exited, fs.existsSync(mark)]).toEqual(['written', 0, true]);
  });
});
