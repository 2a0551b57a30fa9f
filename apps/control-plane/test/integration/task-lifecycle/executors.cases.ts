/**
 * Executors in the control plane over Arbiter's own protocols: a task naming an executor starts
 * it on first use (its resources taken once, beside its tasks'), freed when its agent says it
 * exited or re-registers without it, shut down with its framework; the scheduler's SHUTDOWN and
 * MESSAGE reach the agent, the executor's messages and ends reach the scheduler; each framework
 * and agent acts only for its own; operators list executors scoped as tasks are.
 */
import { Resources } from '@arbiter/allocator';
import type { ExecutorFailure, ExecutorSpec, Reply, SchedulerMessage, TaskSpec } from '@arbiter/contracts';
import { type Offer, SchedulerError, type Subscribe } from '@arbiter/scheduler-sdk';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { freshDatabase } from '../../support/postgres';
import { defined, until } from '../../support/until';
import { Kernel } from '../../../src/kernel/kernel';

const EXECUTOR: ExecutorSpec = {
  executorId: 'exec-1',
  type: 'CUSTOM',
  name: 'the executor',
  command: { shell: './executor' },
  resources: Resources.fromScalars({ cpus: 0.5, mem: 128 }).toJSON(),
};
const task = (taskId: string, cpus: number, executor: ExecutorSpec = EXECUTOR): TaskSpec => ({
  taskId,
  name: taskId,
  resources: Resources.fromScalars({ cpus, mem: 256 }).toJSON(),
  executor,
});
const cpusOf = (o: Offer) => Resources.of(o.resources).get('cpus');
/** The DEFAULT executor of a task group, and a task of the group. */
const defaultExecutor = (executorId: string): ExecutorSpec => ({
  executorId,
  type: 'DEFAULT',
  resources: Resources.fromScalars({ cpus: 0.1, mem: 32 }).toJSON(),
});
const member = (taskId: string): TaskSpec => ({
  taskId,
  name: taskId,
  command: { shell: 'sleep 100' },
  resources: task(taskId, 1).resources,
});
const DATA = Buffer.from('hello executor').toString('base64');

describe('executors', () => {
  let t: TestControlPlane;
  const closers: Array<() => void> = [];

  beforeAll(async () => {
    t = await startTestControlPlane();
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c();
  });
  afterAll(async () => {
    await t.close();
  });

  const agent = async (hostname: string, cpus = 4, agentId?: string, executors?: ProtocolAgent['executors']) => {
    const a = new ProtocolAgent(
      t.cp.url,
      ADMIN_TOKEN,
      { hostname, resources: Resources.fromScalars({ cpus, mem: 4096 }).toJSON(), ...(agentId ? { agentId } : {}) },
      { executors: [...(executors?.values() ?? [])] },
    );
    closers.push(() => a.close());
    await a.register();
    return a;
  };
  const framework = async (f: Subscribe, token?: string) => {
    const r = new Recorder(t, f, token ? { token } : {});
    const messages: SchedulerMessage[] = [];
    const failures: ExecutorFailure[] = [];
    r.s.on('message', (m) => messages.push(m));
    r.s.on('failure', (m) => failures.push(m));
    closers.push(() => r.s.close());
    await r.s.start();
    return Object.assign(r, { messages, failures });
  };
  /**
   * The next offer from `hostname` holding `cpus`: offers of it holding something else are
   * declined at once, so that what they hold comes back together with what is freed.
   */
  const offerWith = async (r: Recorder, hostname: string, cpus: number) => {
    const matches = (o: Offer) => o.hostname === hostname && Math.abs(cpusOf(o) - cpus) < 1e-9;
    await until(() => {
      for (const o of r.offers.filter((x) => x.hostname === hostname && !matches(x))) {
        r.offers.splice(r.offers.indexOf(o), 1);
        void r.s.decline(o.id, { refuseSeconds: 0 }).catch(() => undefined);
      }
      return r.offers.some(matches);
    });
    const o = defined(r.offers.find(matches));
    r.offers.length = 0;
    return o;
  };
  const executorsOf = async (query: { agentId?: string; frameworkId?: string }, token?: string) =>
    ok((token ? t.clientAs(token) : t.client).GET('/api/v1/executors', { params: { query } })).then((p) => p.items);
  const errorOf = (err: unknown) => (err instanceof SchedulerError ? err.code : String(err));

  it("counts an executor's resources once for its tasks, refuses another ExecutorInfo under its id, and frees them when it exits", async () => {
    const node = await agent('exec-acct');
    const a = await framework({ name: 'acct', roles: ['r'] });
    const first = await offerWith(a, 'exec-acct', 4);
    await a.s.launch(first, [task('t1', 1)], { refuseSeconds: 0 });
    await until(() => node.launches.some((l) => l.task.taskId === 't1'));
    expect(defined(node.launches.find((l) => l.task.taskId === 't1')).task.executor).toMatchObject({ executorId: 'exec-1' });
    // An SDK framework that says nothing of checkpointing checkpoints: its executors outlive an agent restart.
    expect(defined(node.launches.find((l) => l.task.taskId === 't1')).checkpoint).toBe(true);
    // 4 - 1 (the task) - 0.5 (its executor).
    const second = await offerWith(a, 'exec-acct', 2.5);
    await a.s.launch(second, [task('t2', 1)], { refuseSeconds: 0 });
    // The executor runs already: only the task's cpus.
    const third = await offerWith(a, 'exec-acct', 1.5);
    const mismatch = { ...EXECUTOR, command: { shell: './other-executor' } };
    await expect(a.s.launch(third, [task('t3', 0.5, mismatch)]).catch(errorOf)).resolves.toBe('EXECUTOR_MISMATCH');
    expect(node.launches.map((l) => l.task.taskId)).not.toContain('t3');
    await a.s.decline(third.id, { refuseSeconds: 0 });

    const [listed] = await executorsOf({ agentId: node.agentId });
    expect(listed).toMatchObject({
      executorId: 'exec-1',
      state: 'RUNNING',
      role: 'r',
      resourcesText: 'cpus:0.5;mem:128',
      tasks: ['t1', 't2'],
    });
    // The agent's and the framework's detail show it too.
    const agentId = defined(node.agentId);
    const detail = await ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } }));
    expect(detail.executors).toEqual([listed]);
    const fwDetail = await ok(t.client.GET('/api/v1/frameworks/{id}', { params: { path: { id: defined(a.s.frameworkId) } } }));
    expect(fwDetail.executors).toEqual([listed]);

    // The executor exits: its tasks end through their updates, its own resources with its exit.
    await node.status(defined(a.s.frameworkId), 't1', 'FAILED', 'REASON_EXECUTOR_TERMINATED');
    await node.status(defined(a.s.frameworkId), 't2', 'FAILED', 'REASON_EXECUTOR_TERMINATED');
    expect(await node.executorExited({ frameworkId: defined(a.s.frameworkId), executorId: 'exec-1', exitCode: 3 })).toEqual({ ok: true });
    await until(() => a.failures.length > 0);
    expect(a.failures[0]).toMatchObject({ agentId: node.agentId, executorId: 'exec-1', exitCode: 3, reason: 'REASON_EXECUTOR_TERMINATED' });
    await offerWith(a, 'exec-acct', 4);
    expect(await executorsOf({ agentId: node.agentId })).toMatchObject([
      { state: 'ENDED', exitCode: 3, endReason: 'REASON_EXECUTOR_TERMINATED' },
    ]);
    // Sent again: nothing more happens.
    expect(await node.executorExited({ frameworkId: defined(a.s.frameworkId), executorId: 'exec-1' })).toEqual({ ok: true });
    expect(a.failures).toHaveLength(1);
  });

  it('routes SHUTDOWN and MESSAGE to the agent and executor messages to the scheduler, each only for its own framework and agent', async () => {
    const node = await agent('exec-route');
    const other = await agent('exec-other');
    const a = await framework({ name: 'route-a', roles: ['r'] });
    const aId = defined(a.s.frameworkId);
    await a.s.launch(await offerWith(a, 'exec-route', 4), [task('ra', 1)]);
    await until(() => node.executors.size === 1);
    const agentId = defined(node.agentId);

    await a.s.message(agentId, 'exec-1', Buffer.from('hello executor'));
    await until(() => node.frameworkMessages.length === 1);
    expect(node.frameworkMessages[0]).toEqual({ frameworkId: aId, executorId: 'exec-1', data: DATA });

    expect(await node.executorMessage({ frameworkId: aId, executorId: 'exec-1', data: DATA })).toEqual({ ok: true });
    await until(() => a.messages.length === 1);
    expect(a.messages[0]).toEqual({ agentId, executorId: 'exec-1', data: DATA });

    // Another framework (another principal) names A's executor: unknown to it, nothing reaches the agent.
    const bToken = await t.principal('exec-fw-b');
    const b = await framework({ name: 'route-b', roles: ['r2'] }, bToken);
    await expect(b.s.message(agentId, 'exec-1', DATA).catch(errorOf)).resolves.toBe('UNKNOWN_EXECUTOR');
    await expect(b.s.shutdownExecutor(agentId, 'exec-1').catch(errorOf)).resolves.toBe('UNKNOWN_EXECUTOR');
    // Another agent cannot speak for this agent's executor: not its own, so unknown, or without effect.
    const viaOther = await other.executorMessage({ frameworkId: aId, executorId: 'exec-1', data: DATA });
    expect(viaOther.ok ? null : viaOther.error.code).toBe('UNKNOWN_EXECUTOR');
    expect(await other.executorExited({ frameworkId: aId, executorId: 'exec-1' })).toEqual({ ok: true });
    expect(await executorsOf({ agentId })).toMatchObject([{ state: 'RUNNING' }]);
    expect(a.failures).toEqual([]);
    // Bad input is refused by name, and changes nothing.
    const bad = (await node.socket.emitWithAck('executorExited', { frameworkId: aId })) as Reply;
    expect(bad.ok ? null : bad.error.code).toBe('INVALID_MESSAGE');
    await expect(a.s.message(agentId, 'exec-1', 'not base64!').catch(errorOf)).resolves.toBe('INVALID_MESSAGE');
    await expect(a.s.message(agentId, 'exec-1', Buffer.alloc(1024 * 1024 + 1)).catch(errorOf)).resolves.toBe('INVALID_MESSAGE');
    expect(node.frameworkMessages).toHaveLength(1);

    await a.s.shutdownExecutor(agentId, 'exec-1');
    await until(() => node.shutdowns.length === 1);
    expect(node.shutdowns[0]).toEqual({ frameworkId: aId, executorId: 'exec-1' });
    expect(other.shutdowns).toEqual([]);
    const metrics = await (await fetch(`${t.cp.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(metrics).toMatch(/arbiter_executor_messages_total\{direction="to_executor"\} 1/);
    expect(metrics).toMatch(/arbiter_executor_messages_total\{direction="to_scheduler"\} 1/);
    expect(metrics).toMatch(/arbiter_executors_running \d/);
  });

  it('ends the executors an agent re-registers without, and shuts down those it runs for nobody', async () => {
    const node = await agent('exec-rereg');
    const a = await framework({ name: 'rereg', roles: ['r'] });
    await a.s.launch(await offerWith(a, 'exec-rereg', 4), [task('rr', 1)], { refuseSeconds: 0 });
    await until(() => node.executors.size === 1);
    const agentId = defined(node.agentId);
    node.close();
    // Back with its task but without the executor, and with one nobody launched.
    const back = new ProtocolAgent(
      t.cp.url,
      ADMIN_TOKEN,
      { agentId, hostname: 'exec-rereg', resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON() },
      { executors: [{ frameworkId: defined(a.s.frameworkId), executorId: 'stray', resources: [] }] },
    );
    back.tasks.set('rr', { frameworkId: defined(a.s.frameworkId), taskId: 'rr', state: 'RUNNING', resources: task('rr', 1).resources });
    closers.push(() => back.close());
    await back.register();
    await until(() => a.failures.length === 1);
    expect(a.failures[0]).toMatchObject({ agentId, executorId: 'exec-1' });
    // The framework hears of the end as the master decides it; the executor's row is written after.
    await until(async () => (await executorsOf({ agentId }))[0]?.state === 'ENDED', 'the executor recorded ended');
    expect(await executorsOf({ agentId })).toMatchObject([{ state: 'ENDED', endReason: 'REASON_EXECUTOR_TERMINATED' }]);
    await until(() => back.shutdowns.length === 1);
    expect(back.shutdowns[0]).toEqual({ frameworkId: a.s.frameworkId, executorId: 'stray' });
    // Only the task's cpus stay allocated.
    await offerWith(a, 'exec-rereg', 3);
  });

  it("shuts a framework's executors down when it is torn down", async () => {
    const node = await agent('exec-teardown');
    const a = await framework({ name: 'teardown', roles: ['r'] });
    const frameworkId = defined(a.s.frameworkId);
    await a.s.launch(await offerWith(a, 'exec-teardown', 4), [task('td', 1)]);
    await until(() => node.executors.size === 1);
    await a.s.teardown();
    await until(() => node.shutdowns.length === 1);
    expect(node.shutdowns[0]).toEqual({ frameworkId, executorId: 'exec-1' });
    await until(async () => (await executorsOf({ frameworkId }))[0]?.state === 'ENDED', 'the executor recorded ended');
    expect(await executorsOf({ frameworkId })).toMatchObject([{ state: 'ENDED', endReason: 'REASON_FRAMEWORK_REMOVED' }]);
  });

  it('runs a task group under its executor, sent to the agent as one launchGroup', async () => {
    const node = await agent('exec-group');
    const a = await framework({ name: 'group', roles: ['r'] });
    const executor = defaultExecutor('default-1');
    const reply = await a.s.launchGroup(await offerWith(a, 'exec-group', 4), executor, [member('g1'), member('g2')], { refuseSeconds: 0 });
    expect(reply.launched).toEqual(['g1', 'g2']);
    await until(() => node.launchGroups.length === 1);
    expect(node.launchGroups[0]).toMatchObject({ frameworkId: a.s.frameworkId, executor: { executorId: 'default-1' } });
    expect(node.launchGroups[0].tasks.map((x) => x.taskId)).toEqual(['g1', 'g2']);
    expect(node.launches).toEqual([]);
    // 4 - 2 (the tasks) - 0.1 (their executor).
    const next = await offerWith(a, 'exec-group', 1.9);
    // A CUSTOM executor runs no group, and the DEFAULT executor no single task.
    await expect(a.s.launchGroup(next, EXECUTOR, [member('g3')]).catch(errorOf)).resolves.toBe('INVALID_MESSAGE');
    await expect(a.s.launch(next, [task('g4', 0.1, executor)]).catch(errorOf)).resolves.toBe('INVALID_MESSAGE');
  });

  it('sends a STAGING task group again as one launchGroup when its agent re-registers without it', async () => {
    const node = await agent('exec-regroup');
    node.runsLaunches = false;
    const a = await framework({ name: 'regroup', roles: ['r'] });
    const executor = defaultExecutor('default-2');
    await a.s.launchGroup(await offerWith(a, 'exec-regroup', 4), executor, [member('rg1'), member('rg2')], { refuseSeconds: 0 });
    await a.s.launch(await offerWith(a, 'exec-regroup', 1.9), [task('single', 1)], { refuseSeconds: 0 });
    await until(() => node.launchGroups.length === 1 && node.launches.length === 1);
    const agentId = defined(node.agentId);
    node.close();
    // Back as if neither launch had reached it: the group goes again as one, the single task alone.
    const back = await agent('exec-regroup', 4, agentId);
    await until(() => back.launchGroups.length === 1 && back.launches.length === 1);
    expect(back.launchGroups[0]).toMatchObject({ frameworkId: a.s.frameworkId, executor: { executorId: 'default-2' } });
    expect(back.launchGroups[0].tasks.map((x) => x.taskId).sort()).toEqual(['rg1', 'rg2']);
    expect(back.launches.map((l) => l.task.taskId)).toEqual(['single']);
    // Their executors were not ended for being absent: they start with the tasks sent again.
    await until(() => back.executors.size === 2);
    const listed = await executorsOf({ agentId });
    expect(listed.map((e) => [e.executorId, e.state]).sort()).toEqual([
      ['default-2', 'RUNNING'],
      ['exec-1', 'RUNNING'],
    ]);
    expect(a.failures).toEqual([]);
  });

  it('lists to a viewer only the executors of the frameworks whose tasks it may view', async () => {
    const node = await agent('exec-scope', 8);
    const alice = await framework({ name: 'scope-alice', roles: ['sa'], user: 'alice' });
    const bob = await framework({ name: 'scope-bob', roles: ['sb'], user: 'bob' });
    await alice.s.launch(await offerWith(alice, 'exec-scope', 8), [task('sa1', 1)]);
    await until(() => node.executors.size === 1);
    await alice.s.suppress();
    await bob.s.launch(await offerWith(bob, 'exec-scope', 6.5), [task('sb1', 1, { ...EXECUTOR, executorId: 'exec-bob' })]);
    await until(() => node.executors.size === 2);
    const viewer = await t.principal('exec-viewer', 'VIEWER');
    const only = [
      { principals: { values: ['exec-viewer'] }, users: { values: ['alice'] } },
      { principals: { values: ['exec-viewer'] }, users: { type: 'NONE' } },
    ];
    expect((await t.request('PUT', '/api/v1/acls', { permissive: true, view_tasks: only })).status).toBe(200);
    expect((await executorsOf({ agentId: node.agentId }, viewer)).map((e) => e.executorId)).toEqual(['exec-1']);
    expect((await executorsOf({ agentId: node.agentId })).map((e) => e.executorId).sort()).toEqual(['exec-1', 'exec-bob']);
    const badQuery = await t.request('GET', '/api/v1/executors?state=SLEEPING');
    expect(badQuery.status).toBe(400);
    expect((badQuery.body as { code: string }).code).toBe('VALIDATION_FAILED');
  });
});

describe('executors across a control plane restart', () => {
  it('are rebuilt from the database: still running when their agent reports them, their resources still taken', async () => {
    const db = await freshDatabase();
    const resources = Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON();
    const first = await startTestControlPlane({ databaseUrl: db.url });
    const node = new ProtocolAgent(first.cp.url, ADMIN_TOKEN, { hostname: 'exec-restart', resources });
    const agentId = await node.register();
    const framework = { name: 'restart', roles: ['r'], failoverTimeoutSeconds: 3600 };
    const a = new Recorder(first, framework);
    const { frameworkId } = await a.s.start();
    await until(() => a.offers.some((o) => cpusOf(o) === 4));
    await a.s.launch(defined(a.offers.find((o) => cpusOf(o) === 4)), [task('rs', 1)]);
    await until(() => node.tasks.get('rs')?.state === 'RUNNING');
    await first.cp.app.get(Kernel).settled();
    a.s.close();
    node.close();
    await first.stop();

    const second = await startTestControlPlane({ databaseUrl: db.url });
    try {
      const back = new ProtocolAgent(
        second.cp.url,
        ADMIN_TOKEN,
        { agentId, hostname: 'exec-restart', resources },
        { executors: [...node.executors.values()] },
      );
      back.tasks.set('rs', { ...defined(node.tasks.get('rs')) });
      await back.register();
      const again = new Recorder(second, { ...framework, frameworkId });
      await again.s.start();
      // 4 - 1 (the task) - 0.5 (its executor), as before the restart.
      await until(() => again.offers.some((o) => o.hostname === 'exec-restart'));
      expect(again.offers.filter((o) => o.hostname === 'exec-restart').map(cpusOf)).toEqual([2.5]);
      const listed = await ok(second.client.GET('/api/v1/executors', { params: { query: { agentId } } }));
      expect(listed.items).toMatchObject([{ executorId: 'exec-1', state: 'RUNNING' }]);
      expect(back.shutdowns).toEqual([]);
      again.s.close();
      back.close();
    } finally {
      await second.stop();
      await db.drop();
    }
  });
});
