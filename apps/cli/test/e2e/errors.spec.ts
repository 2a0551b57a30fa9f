/**
 * How a command that fails tells the user: one line, `arbiter: <what went wrong>`, and an exit
 * code, never a Node.js stack trace (ARBITER_DEBUG=1 asks for it), as a user runs the command.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringMatching } from '../../../control-plane/test/support/matchers';
import { withEnv } from '../../../control-plane/test/support/process';
import { root } from './npx-arbiter';

const BIN = path.join(root, 'apps/cli/bin/arbiter.js');

/** `arbiter ARGS` without DATABASE_URL (the embedded server's commands), with `env` added. */
function arbiter(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: root,
        encoding: 'utf8',
        env: withEnv(process.env, { DATABASE_URL: undefined, ARBITER_DEBUG: undefined, ...env }),
        timeout: 60_000,
      },
      (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('arbiter: a command that fails says why in one line', () => {
  let dir: string;
  let server: ChildProcess;

  beforeAll(() => {
    // A data directory whose PostgreSQL server runs: its postmaster.pid names a live process
    // called postgres (as another Arbiter's server would be).
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-held-'));
    fs.mkdirSync(path.join(dir, 'postgres'));
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.symlinkSync(fs.realpathSync('/bin/sleep'), path.join(dir, 'bin', 'postgres'));
    server = spawn(path.join(dir, 'bin', 'postgres'), ['300'], { stdio: 'ignore' });
    fs.writeFileSync(path.join(dir, 'postgres', 'postmaster.pid'), `${server.pid}\n${dir}/postgres\n`);
  });

  afterAll(() => {
    server.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('`db migrate` on a data directory another server holds names that server, with no stack trace', async () => {
    const run = await arbiter(['db', 'migrate', '--data-dir', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^arbiter: the embedded PostgreSQL data in \\S+ is in use by a server already running \\(pid ${server.pid}\\).*stop it first`,
        ),
      ),
    ]);
  });

  it('prints the stack as well with ARBITER_DEBUG=1', async () => {
    const run = await arbiter(['db', 'migrate', '--data-dir', dir], { ARBITER_DEBUG: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/is in use by a server already running/);
    expect(run.stderr).toMatch(/\n\s+at .*database\.embedded\.ts/);
  });

  it('`example mesos-throttle` with a master that does not answer names its URL and the cause', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nowhere = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await arbiter(['example', 'mesos-throttle', '--master', nowhere, '--token', 'arb_unused']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as unknown).toEqual({
      event: 'error',
      message: stringMatching(new RegExp(`^SUBSCRIBE: no answer from ${nowhere}/api/v1/scheduler \\(.*ECONNREFUSED`)),
    });
  });
});
