/**
 * `arbiter start` (what `npm start` runs) as a process: the control plane and its local agent
 * come up, the agent's modules from `--agent-modules` run around its tasks, Ctrl-C stops it all;
 * a module that cannot be loaded stops the start before anything runs. The dashboard is left
 * out (`--no-dashboard`): the browser tests cover it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defined, until } from '@arbiter/test-support';
import { ADMIN_TOKEN } from '../../../control-plane/test/support/admin-token';
import { freshDatabase } from '../../../control-plane/test/support/postgres';
import { withEnv } from '../../../control-plane/test/support/process';
import { DASHBOARD_DIR, stopLeftDashboard } from '../../src/commands/dashboard';
import { lastLine, root, runArbiter, untilAgents } from './npx-arbiter';

const MODULE = `
const { defineModule, MODULE_API_VERSION } = require('@arbiter/modules');
module.exports = defineModule({
  name: 'start-env',
  apiVersion: MODULE_API_VERSION,
  points: ['agent:container-start'],
  create: (parameters) => ({ containerStart: () => ({ environment: { HOOKED_BY: parameters.value } }) }),
});
`;

interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

/** `arbiter start ARGS` with `env` added to this process's environment (a variable set to undefined left out). */
function start(args: string[], env: Record<string, string | undefined>): Started {
  const child = spawn(process.execPath, [path.join(root, 'apps/cli/bin/arbiter.js'), 'start', '--no-dashboard', ...args], {
    cwd: root,
    env: withEnv(process.env, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

/** Whether process `pid` runs (a zombie does not). */
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe('arbiter start', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await freshDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-start-'));
    fs.chmodSync(dir, 0o711);
    fs.writeFileSync(path.join(dir, 'start-env.js'), MODULE);
    // The module resolves @arbiter/modules from the repository, as a module beside it would.
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    env = {
      DATABASE_URL: db.url,
      PORT: '0',
      ARBITER_DATA_DIR: path.join(dir, 'data'),
      ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
      ARBITER_ALLOCATION_INTERVAL: '0.2',
    };
  });

  afterAll(async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs a local cluster whose agent runs its modules' hooks around tasks and takes the agent's settings; Ctrl-C stops it", async () => {
    const modules = path.join(dir, 'agent-modules.json');
    fs.writeFileSync(modules, JSON.stringify({ modules: [{ use: './start-env.js', parameters: { value: 'start-test' } }] }));
    // The local agent reads the variables `arbiter agent` does: here, the user its tasks run as.
    const cluster = start(['--agent-modules', modules], { ...env, ARBITER_TASK_USER: 'daemon' });
    try {
      await until(() => cluster.output().includes('Press Ctrl-C to stop.'), 60_000, 'the cluster is running');
      const url = defined(/control plane: +(\S+)/.exec(cluster.output())?.[1], 'the control plane URL printed');
      expect(cluster.output()).toContain(`local agent:   ${os.hostname()}`);
      await untilAgents(url, ADMIN_TOKEN, 1);

      const post = (route: string, body: object) =>
        fetch(`${url}/api/v1/${route}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json() as Promise<{ token?: string }>);
      await post('principals', { name: 'start-fw', kind: 'FRAMEWORK' });
      const token = defined((await post('principals/start-fw/tokens', {})).token, 'a framework token');
      // The task finishes only where the agent's module put HOOKED_BY in its environment, as daemon.
      const batch = await runArbiter([
        'example',
        'batch',
        '--master',
        url,
        '--token',
        token,
        'test "$HOOKED_BY" = start-test && test "$(id -un)" = daemon',
      ]);
      expect([batch.status, lastLine(batch.stdout)]).toEqual([0, '{"finished":1,"failed":0}']);
    } finally {
      cluster.child.kill('SIGINT');
    }
    expect(await cluster.exit).toBe(0);
    // Ctrl-C stops the agent, then the control plane: no warning about reconnecting on the way out.
    expect(cluster.output()).toMatch(/^SIGINT: stopping$[^]*^stopped\n$/m);
    expect(cluster.output()).not.toContain('reconnecting');
  });

  it('stops the start with a clear message when an agent module cannot be loaded, before anything runs', async () => {
    const modules = path.join(dir, 'missing-modules.json');
    fs.writeFileSync(modules, JSON.stringify({ modules: [{ use: './no-such-module.js' }] }));
    const cluster = start(['--agent-modules', modules], env);
    expect(await cluster.exit).toBe(1);
    expect(cluster.output()).toMatch(
      /^arbiter: the local agent did not start: module '\.\/no-such-module\.js' \(.*missing-modules\.json\) could not be loaded: /m,
    );
    expect(cluster.output()).not.toContain('Arbiter is running');
  });

  it("stops the start with the setting named when a local agent's setting is wrong, before anything runs", async () => {
    const cluster = start([], { ...env, ARBITER_GC_DELAY: 'soon' });
    try {
      await until(() => cluster.child.exitCode !== null, 20_000, 'the start stopped');
    } finally {
      cluster.child.kill('SIGKILL'); // a start that went on is not left running
    }
    expect(await cluster.exit).toBe(2);
    expect(cluster.output()).toMatch(/^arbiter: the local agent did not start: --gc-delay: 'soon' is not a duration/m);
    expect(cluster.output()).not.toContain('Arbiter is running');
  });

  it('starts again after a start killed with SIGKILL, stopping the PostgreSQL server the killed one left on its data directory', async () => {
    // The embedded server, as `npm start` runs it: no DATABASE_URL.
    const embedded = { ...env, DATABASE_URL: undefined, ARBITER_DATA_DIR: path.join(dir, 'killed') };
    const serverPid = () => Number(fs.readFileSync(path.join(dir, 'killed', 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const first = start(['--no-agent'], embedded);
    await until(() => first.output().includes('Press Ctrl-C to stop.'), 60_000, 'the first start is running');
    const left = serverPid();
    first.child.kill('SIGKILL');
    await first.exit;
    // Its server goes on without it (adopted by init), holding the data directory.
    expect(alive(left)).toBe(true);
    const second = start(['--no-agent'], embedded);
    try {
      await until(() => second.output().includes('Press Ctrl-C to stop.'), 60_000, 'the second start is running');
      expect(second.output()).toContain(
        `stopping the PostgreSQL server (pid ${left}) an Arbiter that ended without stopping it left running`,
      );
      expect(alive(left)).toBe(false);
      expect(serverPid()).not.toBe(left);
    } finally {
      second.child.kill('SIGINT');
    }
    expect(await second.exit).toBe(0);
  });

  it('stops a dashboard server a killed start left running (adopted by init, working in the dashboard folder), and nothing else', async () => {
    // A process whose parent has gone, as a killed start's `next start` is.
    const orphan = (cwd: string) =>
      Number(execFileSync('sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { cwd, encoding: 'utf8' }).trim());
    const left = orphan(DASHBOARD_DIR);
    const other = orphan(dir);
    const pidFile = path.join(dir, 'dashboard.pid');
    try {
      fs.writeFileSync(pidFile, `${other}\n`);
      await stopLeftDashboard(pidFile);
      expect(alive(other)).toBe(true);
      fs.writeFileSync(pidFile, `${left}\n`);
      await stopLeftDashboard(pidFile);
      await until(() => !alive(left), 10_000, 'the left dashboard server stopped');
      expect(fs.existsSync(pidFile)).toBe(false);
    } finally {
      for (const pid of [left, other]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
