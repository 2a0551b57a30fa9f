/**
 * The executor examples as a user types them (`npx arbiter example throttle`, `npx arbiter
 * example mesos-throttle`, `npx arbiter example task-group`) against real processes: `arbiter
 * control-plane`, `arbiter agent` starting the examples' executors, each running several tasks in
 * its one process, and its default executor running task groups.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { principal } from '@arbiter/test-support';
import { ADMIN_TOKEN } from '../../../control-plane/test/support/admin-token';
import { freshDatabase } from '../../../control-plane/test/support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../../control-plane/test/support/process';
import { lastLine, root, runArbiter, untilAgents } from './npx-arbiter';

const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

describe('the executor examples, typed as a user types them', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let cp: ControlPlaneProcess;
  let dir: string;
  let agent: AgentProcess;
  let token: string;

  beforeAll(async () => {
    db = await freshDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-executor-examples-'));
    fs.chmodSync(dir, 0o711);
    cp = await spawnControlPlane({ DATABASE_URL: db.url, PORT: '0', ARBITER_ADMIN_TOKEN: ADMIN_TOKEN, ARBITER_ALLOCATION_INTERVAL: '0.2' });
    agent = new AgentProcess('executor-examples-agent', path.join(dir, 'agent'), 'cpus:2;mem:2048');
    agent.start(cp.url, ADMIN_TOKEN);
    token = await principal({ url: cp.url, token: ADMIN_TOKEN }, 'throttle', 'FRAMEWORK');
    await untilAgents(cp.url, ADMIN_TOKEN, 1);
  });

  afterAll(async () => {
    await agent.stop();
    await cp.stop();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('npx arbiter example throttle: six tasks, each RUNNING then FINISHED, all in one executor process', async () => {
    expect(readme).toContain('`npx arbiter example throttle --master URL`');
    const r = await runArbiter(['example', 'throttle', '--master', cp.url], { ARBITER_FRAMEWORK_TOKEN: token });
    expect(r.stderr).not.toMatch(/TypeError|Error:/);
    expect([r.status, lastLine(r.stdout)]).toEqual([0, '{"tasks":6,"finished":6,"executorProcesses":1}']);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => /^launch .* under executor throttle$/.test(l)).length).toBeGreaterThan(0);
    for (let i = 0; i < 6; i++) {
      expect(
        lines
          .filter((l) => l.startsWith(`throttle-${i} `))
          .map((l) => l.split(' ')[1])
          .slice(-2),
      ).toEqual(['RUNNING', 'FINISHED']);
    }
    // The executor ran at most two at a time, as the scheduler asked (ExecutorInfo.data).
    expect(lines.filter((l) => / RUNNING \(pid \d+: running, [12] of 2 at a time\)$/.test(l))).toHaveLength(6);
  }, 120_000);

  it('npx arbiter example mesos-throttle: the same over the Mesos v1 scheduler and executor APIs', async () => {
    expect(readme).toContain('`npx arbiter example mesos-throttle --master URL --token T`');
    const user = process.getuid?.() === 0 ? ['--user', 'nobody'] : [];
    const r = await runArbiter(['example', 'mesos-throttle', '--master', cp.url, '--token', token, ...user]);
    expect([r.status, lastLine(r.stdout)]).toEqual([0, '{"tasks":6,"finished":6,"executorProcesses":1}']);
    const events = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"event"'))
      .map((l) => JSON.parse(l) as { event: string; taskId?: string; state?: string; message?: string });
    expect(events[0].event).toBe('subscribed');
    const states = (taskId: string) => events.filter((e) => e.event === 'update' && e.taskId === taskId).map((e) => e.state);
    for (let i = 0; i < 6; i++) expect(states(`throttle-${i}`).slice(-2)).toEqual(['TASK_RUNNING', 'TASK_FINISHED']);
    const pids = new Set(events.filter((e) => e.event === 'update').map((e) => /pid (\d+)/.exec(e.message ?? '')?.[1]));
    expect(pids.size).toBe(1);
  }, 120_000);

  it('npx arbiter example task-group: three tasks share their sandbox under the default executor; a failing task kills its group', async () => {
    expect(readme).toContain('`npx arbiter example task-group --master URL --token T`');
    const r = await runArbiter(['example', 'task-group', '--master', cp.url, '--token', token]);
    expect(r.stderr).not.toMatch(/TypeError|Error:/);
    expect([r.status, lastLine(r.stdout)]).toEqual([0, '{"shared":{"tasks":3,"finished":3},"failing":{"tasks":3,"failed":1,"killed":2}}']);
    const lines = r.stdout.split('\n');
    const states = (taskId: string) => lines.filter((l) => l.startsWith(`${taskId} `)).map((l) => l.split(' ')[1]);
    expect(lines.filter((l) => /^launch group (shared|failing) \(.*\) on .* under the default executor$/.test(l))).toHaveLength(2);
    // The reader finished: it read both writers' lines from the shared sandbox.
    for (const id of ['writer-1', 'writer-2', 'reader']) expect(states(id).slice(-2)).toEqual(['RUNNING', 'FINISHED']);
    expect(states('breaks').at(-1)).toBe('FAILED');
    expect(lines).toContain('breaks FAILED (the command exited with status 3)');
    for (const id of ['worker-1', 'worker-2']) {
      expect(states(id).at(-1)).toBe('KILLED');
      expect(lines).toContain(`${id} KILLED (task breaks of its group failed)`);
    }
  }, 120_000);
});
