/**
 * A control-plane failover with an executor running, with real processes: two control-plane
 * replicas, one agent, and a framework on the SDK whose custom executor (the throttle example's,
 * one process for every task it is given) holds a RUNNING task. The leader is SIGKILLed; once
 * the standby leads, the executor is the same process, its task still RUNNING in the new
 * leader's API, and a new task goes to that same executor.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, getAsAdmin, replicaRole, spawnReplica } from '../../support/process';
import { defined, until } from '../../support/until';

const PROGRAM = path.resolve(__dirname, '../../../../../examples/executors/throttle-executor.js');
const TASK = Resources.fromScalars({ cpus: 0.1, mem: 16 });
const OWN = Resources.fromScalars({ cpus: 0.1, mem: 256 });

interface TaskView {
  taskId: string;
  state: string;
}
interface ExecutorView {
  id: string;
  executorId: string;
  state: string;
  startedAt: string;
  tasks: string[];
}

describe('a control-plane failover with an executor running', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-executor-failover-'));
  fs.chmodSync(dir, 0o711);
  // The executor's script lies outside /tmp, which each executor gets a private copy of.
  const scripts = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'arbiter-executor-failover-'));
  fs.chmodSync(scripts, 0o755);
  const script = path.join(scripts, 'throttle-executor.sh');
  fs.writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(PROGRAM)} "$@"\n`, { mode: 0o755 });

  let db: { url: string; drop: () => Promise<void> };
  const replicas: Array<{ url: string; port: number; process?: ControlPlaneProcess }> = [];
  const agent = new AgentProcess('executor-failover-agent', path.join(dir, 'agent'), 'cpus:2;mem:2048');
  let s: Scheduler | undefined;

  beforeAll(async () => {
    db = await freshDatabase();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const r = { port, url: `http://127.0.0.1:${port}` };
      replicas.push(r);
    }
    // One at a time: the first leads.
    for (const r of replicas) {
      r.process = await spawnReplica(db.url, r.url);
    }
  }, 120_000);

  afterAll(async () => {
    await s?.teardown().catch(() => s?.close());
    await agent.stop();
    for (const r of replicas) await r.process?.stop('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(scripts, { recursive: true, force: true });
  });

  it('leaves the executor alone: same process, its task RUNNING in the new leader, a new task onto it', async () => {
    const [first, second] = replicas;
    expect([await replicaRole(first.url), await replicaRole(second.url)]).toEqual(['leader', 'standby']);
    const masters = replicas.map((r) => r.url).join(',');
    agent.start(masters, ADMIN_TOKEN);
    await until(async () => (await getAsAdmin<{ total: number }>(first.url, '/api/v1/agents?status=REACHABLE')).total === 1);

    const executor = {
      executorId: 'throttle',
      type: 'CUSTOM' as const,
      command: { shell: `/bin/sh ${script}` },
      resources: OWN.toJSON(),
      data: Buffer.from(JSON.stringify({ throttle: 4 })).toString('base64'),
    };
    // Tasks that work for ten minutes: they stay RUNNING across the failover.
    const data = Buffer.from(JSON.stringify({ workMs: 600_000 })).toString('base64');
    const waiting: string[] = ['before'];
    let withExecutor = false;
    const updates: StatusUpdate[] = [];
    s = new Scheduler({
      master: masters,
      token: ADMIN_TOKEN,
      framework: { name: 'executor-failover', roles: ['ef'], failoverTimeoutSeconds: 120 },
    });
    const sched = s;
    sched.on('offers', (offers: Offer[]) => {
      for (const offer of offers) {
        const need = withExecutor ? TASK : TASK.plus(OWN);
        const taskId = waiting.at(0);
        if (!taskId || !Resources.of(offer.resources).contains(need)) {
          sched.decline(offer.id, { refuseSeconds: 0.5 }).catch(() => undefined);
          continue;
        }
        waiting.shift();
        withExecutor = true;
        sched.launch(offer, [{ taskId, name: taskId, resources: TASK.toJSON(), executor, data }]).catch(() => waiting.unshift(taskId));
      }
    });
    sched.on('update', (u: StatusUpdate) => updates.push(u));
    sched.on('error', () => undefined);
    await sched.start();
    const frameworkId = defined(sched.frameworkId);

    const running = (taskId: string) => updates.find((u) => u.taskId === taskId && u.state === 'RUNNING');
    await until(() => running('before') !== undefined, 60_000, 'the first task RUNNING under its executor');
    const pid = /pid (\d+)/.exec(running('before')?.message ?? '')?.[1];
    expect(pid).toMatch(/^\d+$/);
    const executorsBefore = await getAsAdmin<{ items: ExecutorView[] }>(first.url, `/api/v1/executors?frameworkId=${frameworkId}`);
    expect(executorsBefore.items).toMatchObject([{ executorId: 'throttle', state: 'RUNNING', tasks: ['before'] }]);

    await defined(first.process).stop('SIGKILL');
    await until(async () => (await replicaRole(second.url)) === 'leader', 20_000, 'the standby to lead');
    await until(
      async () => (await getAsAdmin<{ total: number }>(second.url, '/api/v1/agents?status=REACHABLE')).total === 1,
      30_000,
      'the agent re-registered with the new leader',
    );

    // The new leader knows the executor and its task as they were.
    const tasks = await getAsAdmin<{ items: TaskView[] }>(second.url, `/api/v1/tasks?frameworkId=${frameworkId}`);
    expect(tasks.items.map((t) => [t.taskId, t.state])).toEqual([['before', 'RUNNING']]);
    const executorsAfter = await getAsAdmin<{ items: ExecutorView[] }>(second.url, `/api/v1/executors?frameworkId=${frameworkId}`);
    expect(executorsAfter.items).toEqual([
      expect.objectContaining({ id: executorsBefore.items[0].id, state: 'RUNNING', startedAt: executorsBefore.items[0].startedAt }),
    ]);

    // A new task goes to the same executor process, with the executor's resources not asked for again.
    waiting.push('after');
    await until(() => running('after') !== undefined, 60_000, 'the second task RUNNING');
    expect(/pid (\d+)/.exec(running('after')?.message ?? '')?.[1]).toBe(pid);
    // The first task's only updates: nothing about it changed across the failover.
    expect(updates.filter((u) => u.taskId === 'before').map((u) => u.state)).not.toContain('LOST');
    const end = await getAsAdmin<{ items: TaskView[] }>(second.url, `/api/v1/tasks?frameworkId=${frameworkId}`);
    expect(end.items.map((t) => [t.taskId, t.state]).sort()).toEqual([
      ['after', 'RUNNING'],
      ['before', 'RUNNING'],
    ]);
    const executorsEnd = await getAsAdmin<{ items: ExecutorView[] }>(second.url, `/api/v1/executors?frameworkId=${frameworkId}`);
    expect(executorsEnd.items).toMatchObject([{ id: executorsBefore.items[0].id, state: 'RUNNING', tasks: ['before', 'after'] }]);
    expect(agent.log).not.toMatch(/"level":(50|60)/);
  }, 180_000);
});
