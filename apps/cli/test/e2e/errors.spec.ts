/**
 * How a command that fails tells the user: one line, `arbiter: <what went wrong>`, and an exit
 * code, never a Node.js stack trace (ARBITER_DEBUG=1 asks for it), as a user runs the command.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { root } from './npx-arbiter';

const BIN = path.join(root, 'apps/cli/bin/arbiter.js');

/** `arbiter ARGS` without DATABASE_URL (the embedded server's commands), with `env` added. */
function arbiter(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'DATABASE_URL' && k !== 'ARBITER_DEBUG'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: root, encoding: 'utf8', env: { ...base, ...env }, timeout: 60_000 },
      (err, _out, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }),
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
});
