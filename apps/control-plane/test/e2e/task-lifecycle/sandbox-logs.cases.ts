/**
 * A task's logs and sandbox with real processes (issue #31 item 3): the control plane
 * (`arbiter control-plane`) relays to a real agent (`arbiter agent`); a task's stdout is
 * followed through the API while the task writes it, and by `arbiter task logs --follow` in a
 * child process; its stderr and sandbox listing through the CLI; paths that lead out of the
 * sandbox (`..`, a symbolic link the task made) refused by the agent.
 */
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { defined, until } from '../../support/until';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnSingleControlPlane } from '../../support/process';

const BIN = path.resolve(__dirname, '../../../../cli/bin/arbiter.js');
const LINES = 40;
/** Writes LINES lines, one every 0.1 s, then a line to stderr, and makes a link out of its sandbox. */
const WRITER = `ln -s /etc/passwd leak; for i in $(seq 1 ${LINES}); do echo line-$i; sleep 0.1; done; echo oops >&2`;
const expected = Array.from({ length: LINES }, (_, i) => `line-${i + 1}\n`).join('');

interface ReadAnswer {
  data: string;
  offset: number;
  length: number;
  size: number;
}

describe('sandbox logs end to end: a real agent, the API and the CLI', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-logs-e2e-'));
  // Tasks run as nobody: their sandboxes, under the agent's work directory, must be reachable.
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let scheduler: Scheduler | undefined;
  const agent = new AgentProcess('logs-agent-1', path.join(dir, 'agent-1'), 'cpus:4;mem:4096');
  const master = () => defined(cp).url;
  const api = async (url: string) => {
    const res = await fetch(master() + url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'task', ...args, '--master', master()],
        { env: { ...process.env, ARBITER_TOKEN: ADMIN_TOKEN }, encoding: 'utf8', timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    db = await freshDatabase();
    cp = await spawnSingleControlPlane(db.url);
    agent.start(master(), ADMIN_TOKEN);
    await until(async () => ((await api('/api/v1/agents')).body as { total: number }).total === 1, 30_000, 'the agent registered');
  }, 90_000);

  afterAll(async () => {
    scheduler?.close();
    await agent.killWithTasks();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('follows a writing task through the API and `arbiter task logs --follow`, and refuses paths out of its sandbox', async () => {
    const offers: Offer[] = [];
    const updates: StatusUpdate[] = [];
    const s = (scheduler = new Scheduler({ master: master(), token: ADMIN_TOKEN, framework: { name: 'writer', roles: ['logs'] } }));
    s.on('offers', (o) => offers.push(...o));
    s.on('update', (u) => updates.push(u));
    await s.start();
    await until(() => offers.length > 0, 20_000, 'an offer');
    await s.launch(defined(offers[0]), [
      { taskId: 'writer', name: 'writer', command: { shell: WRITER }, resources: Resources.fromScalars({ cpus: 0.5, mem: 64 }).toJSON() },
    ]);
    await until(() => updates.some((u) => u.taskId === 'writer' && u.state === 'RUNNING'), 20_000, 'the task running');
    const page = (await api(`/api/v1/tasks?frameworkId=${encodeURIComponent(defined(s.frameworkId))}`)).body as {
      items: Array<{ id: string }>;
    };
    const id = defined(page.items[0]).id;

    // The CLI follows in a child process from now on, while the test follows through the API.
    const follower = spawn(process.execPath, [BIN, 'task', 'logs', id, '--follow', '--interval', '200', '--master', master()], {
      env: { ...process.env, ARBITER_TOKEN: ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let followed = '';
    let followerErr = '';
    follower.stdout.on('data', (c: Buffer) => (followed += c.toString()));
    follower.stderr.on('data', (c: Buffer) => (followerErr += c.toString()));
    const followerExit = new Promise<number | null>((resolve) => follower.once('exit', resolve));

    let text = '';
    let offset = 0;
    const seenWhileRunning: number[] = [];
    for (;;) {
      const ended = updates.some((u) => u.taskId === 'writer' && u.state === 'FINISHED');
      const r = await api(`/api/v1/tasks/${id}/files/read?path=stdout&offset=${offset}`);
      expect(r.status).toBe(200);
      const answer = r.body as ReadAnswer;
      text += answer.data;
      offset = answer.offset + answer.length;
      if (!ended && answer.length > 0) seenWhileRunning.push(text.split('\n').length - 1);
      if (ended) break;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(text).toBe(expected);
    // It came in pieces, as it was written: read several times, before the task had written it all.
    expect(seenWhileRunning.length).toBeGreaterThan(2);
    expect(seenWhileRunning[0]).toBeLessThan(LINES);

    expect(await followerExit).toBe(0);
    expect(followerErr).toBe('');
    expect(followed).toBe(expected);

    const stderr = await cli(['logs', id, '--stderr']);
    expect(stderr).toMatchObject({ code: 0, stdout: 'oops\n' });
    const listing = await cli(['files', id]);
    expect(listing.code).toBe(0);
    expect(listing.stdout).toMatch(/^-rw-------\s.*\s311\s.*\sstdout$/m);

    for (const [url, code] of [
      [`/api/v1/tasks/${id}/files/read?path=../../../../../../etc/passwd`, 'SANDBOX_PATH_INVALID'],
      [`/api/v1/tasks/${id}/files/read?path=leak`, 'SANDBOX_PATH_INVALID'],
      [`/api/v1/tasks/${id}/files/read?path=nothing-here`, 'SANDBOX_FILE_NOT_FOUND'],
    ]) {
      const r = await api(url);
      expect([url, (r.body as { code?: string }).code]).toEqual([url, code]);
      expect(JSON.stringify(r.body)).not.toContain('root:');
    }
    const refused = await cli(['logs', '00000000-0000-0000-0000-000000000000']);
    // Not found: exit code 3 and the API's code in one sentence (docs/cli.md).
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^arbiter: not found \(TASK_NOT_FOUND\): /);
  }, 90_000);
});
