/**
 * End to end with real processes: the control plane (`arbiter control-plane`), two agents
 * (`arbiter agent`) running tasks as child processes, and frameworks on the scheduler SDK.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import { sandboxOf } from '@arbiter/agent';
import { runDrfDemo } from '@arbiter/examples';
import { type Offer, Scheduler, SchedulerError, type StatusUpdate, type Subscribe, type TaskSpec } from '@arbiter/scheduler-sdk';
import { freePort } from '../../../src/database/database.embedded';
import { principal, timeScale } from '@arbiter/test-support';
import { defined, sleep, until } from '../../support/until';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { apiClient, ok } from '../../support/client';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../support/process';

class Framework {
  readonly s: Scheduler;
  readonly offers: Offer[] = [];
  readonly updates: StatusUpdate[] = [];
  readonly rescinded: string[] = [];
  constructor(master: string, info: Subscribe) {
    this.s = new Scheduler({ master, token: ADMIN_TOKEN, framework: info });
    this.s.on('offers', (o) => this.offers.push(...o));
    this.s.on('update', (u) => this.updates.push(u));
    this.s.on('rescind', (id) => {
      this.rescinded.push(id);
      const i = this.offers.findIndex((o) => o.id === id);
      if (i >= 0) this.offers.splice(i, 1);
    });
  }
  async offerFrom(hostname: string, ms = 20_000): Promise<Offer> {
    await until(() => this.offers.some((o) => o.hostname === hostname), ms, `an offer from ${hostname}`);
    const i = this.offers.findIndex((o) => o.hostname === hostname);
    return this.offers.splice(i, 1)[0];
  }
  /**
   * Launches `tasks` on an offer from `hostname`. An offer rescinded before the launch reached
   * the control plane (its agent re-registered, or went silent for a while on a loaded machine)
   * is refused as stale: the launch goes on the next offer, as a framework's would.
   */
  async launchOn(hostname: string, tasks: TaskSpec[], options: { refuseSeconds?: number } = {}): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.s.launch(await this.offerFrom(hostname), tasks, options);
        return;
      } catch (err) {
        if (!(err instanceof SchedulerError && err.code === 'OFFER_STALE') || attempt === 3) throw err;
      }
    }
  }
  states(taskId: string): string[] {
    return this.updates.filter((u) => u.taskId === taskId).map((u) => u.state);
  }
}

const task = (taskId: string, shell: string, resources: Record<string, number> = { cpus: 0.5, mem: 64 }) => ({
  taskId,
  name: taskId,
  command: { shell },
  resources: Resources.fromScalars(resources).toJSON(),
});

describe('end to end: control plane, two agents, SDK frameworks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-e2e-'));
  // Tasks run as nobody: their sandboxes, under the agents' work directories, must be reachable.
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let port: number;
  let cp: ControlPlaneProcess | undefined;
  let master: string;
  const agent1 = new AgentProcess('e2e-agent-1', path.join(dir, 'agent-1'), 'cpus:9;mem:18432');
  const agent2 = new AgentProcess('e2e-agent-2', path.join(dir, 'agent-2'), 'cpus:4;mem:4096');
  const frameworks: Framework[] = [];
  /** The frameworks the running test subscribed (torn down after it, even when it failed half-way). */
  let ofThisTest: Framework[] = [];
  const env = () => ({
    DATABASE_URL: defined(db).url,
    PORT: String(port),
    ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
    ARBITER_ALLOCATION_INTERVAL: '0.2',
    ARBITER_AGENT_TIMEOUT: '4',
  });
  /** The REST API typed by the generated contracts, on the control plane running now (it restarts). */
  const client = () => apiClient(master, ADMIN_TOKEN);
  const tasksOf = (query: { frameworkId?: string; state?: 'RUNNING' }) => ok(client().GET('/api/v1/tasks', { params: { query } }));
  const taskView = (id: string) => ok(client().GET('/api/v1/tasks/{id}', { params: { path: { id } } }));
  const frameworkView = (id: string) => ok(client().GET('/api/v1/frameworks/{id}', { params: { path: { id } } }));
  const agentsOf = (query: { status?: 'REACHABLE'; hostname?: string }) => ok(client().GET('/api/v1/agents', { params: { query } }));
  const framework = async (info: Subscribe) => {
    const f = new Framework(master, info);
    frameworks.push(f);
    ofThisTest.push(f);
    await f.s.start();
    return f;
  };
  const agentsUp = (n: number) =>
    until(async () => (await agentsOf({ status: 'REACHABLE' })).total === n, 20_000, `${n} agents registered`);

  beforeAll(async () => {
    db = await freshDatabase();
    port = await freePort();
    cp = await spawnControlPlane(env());
    master = cp.url;
  });

  // A test that fails before its own teardown leaves its framework holding offers, which would
  // starve the tests after it: the operator's teardown ends it (refused when it is gone already).
  afterEach(async () => {
    const ids = ofThisTest.map((f) => f.s.frameworkId).filter((id) => id !== undefined);
    ofThisTest = [];
    for (const id of ids)
      await fetch(`${master}/api/v1/frameworks/${id}/teardown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }).catch(() => undefined);
  });

  afterAll(async () => {
    for (const f of frameworks) f.s.close();
    for (const a of [agent1, agent2]) await a.killWithTasks();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the DRF example on a real agent: A 3 tasks, B 2, both at 2/3', async () => {
    agent1.start(master, ADMIN_TOKEN);
    await agentsUp(1);
    // As a user runs it: with a framework principal's token.
    const token = await principal({ url: master, token: ADMIN_TOKEN }, 'drf-demo', 'FRAMEWORK');
    const result = await runDrfDemo({ master, token, log: () => undefined, settleMs: 1500 });
    expect(result).toEqual({ tasks: { A: 3, B: 2 }, dominantShares: { A: 0.667, B: 0.667 } });
    // The demo tears its frameworks down: their tasks are killed on the agent.
    await until(async () => (await tasksOf({ state: 'RUNNING' })).total === 0, 20_000, 'demo tasks killed');
    agent2.start(master, ADMIN_TOKEN);
    await agentsUp(2);
  });

  it('respects a decline filter for its duration', async () => {
    const f = await framework({ name: 'filterer', roles: ['e2e'] });
    const first = await f.offerFrom('e2e-agent-2');
    await f.s.decline(first.id, { refuseSeconds: 2 });
    const t0 = Date.now();
    const next = await f.offerFrom('e2e-agent-2');
    const waitedMs = Date.now() - t0;
    // Nothing comes back for 2 s, unless the offer was rescinded before its decline arrived (no filter then, as in
    // Mesos). On failure, what was declined and what came back.
    const seen = { waitedMs, rescinded: f.rescinded.includes(first.id), declined: first.resources, next: next.resources };
    expect(seen.rescinded || waitedMs >= 1900 ? 'filtered' : seen).toBe('filtered');
    await f.s.teardown();
  });

  it('suppresses and revives', async () => {
    const f = await framework({ name: 'sleepy', roles: ['e2e'] });
    await until(() => f.offers.length > 0);
    await f.s.suppress();
    await f.s.decline(
      f.offers.splice(0).map((o) => o.id),
      { refuseSeconds: 0 },
    );
    // Nothing is offered over several allocation intervals (0.2 s each) of the real process.
    await sleep(800);
    expect(f.offers).toHaveLength(0);
    await f.s.revive();
    await until(() => f.offers.length > 0);
    await f.s.teardown();
  });

  it("reports several tasks side by side, each task's updates in order", async () => {
    const f = await framework({ name: 'streams', roles: ['e2e'] });
    const ids = ['s1', 's2', 's3', 's4'];
    await f.launchOn(
      'e2e-agent-2',
      ids.map((id) => task(id, 'exit 0', { cpus: 0.1, mem: 16 })),
    );
    await until(() => ids.every((id) => f.states(id).includes('FINISHED')), 20_000, 'every task FINISHED').catch((err: unknown) => {
      // Seen once in a few whole runs on a loaded machine: what each task got, and what its agent did.
      throw new Error(
        `${(err as Error).message}: ${JSON.stringify(Object.fromEntries(ids.map((id) => [id, f.states(id)])))}\n${agent2.log.slice(-8000)}`,
      );
    });
    for (const id of ids) expect(f.states(id)).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    const tasks = (await tasksOf({ frameworkId: f.s.frameworkId })).items;
    for (const t of tasks) expect((await taskView(t.id)).history?.map((h) => h.state)).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    await f.s.teardown();
  });

  it('kills a running task: the process ends and KILLED is reported', async () => {
    const f = await framework({ name: 'killer', roles: ['e2e'] });
    await f.launchOn('e2e-agent-2', [task('victim', 'echo $$ > pid; exec sleep 300')]);
    await until(() => f.states('victim').includes('RUNNING'));
    const pidFile = path.join(sandboxOf(agent2.workDir, defined(f.s.frameworkId), 'victim'), 'pid');
    await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    await f.s.kill('victim');
    await until(() => f.states('victim').includes('KILLED'));
    expect(() => process.kill(pid, 0)).toThrow();
    await f.s.teardown();
  });

  it(
    'survives a control plane restart: agents re-register, running tasks are kept, no status update is lost; the framework fails over within its timeout',
    async () => {
      const f = await framework({ name: 'steady', roles: ['e2e'], failoverTimeoutSeconds: 120 });
      const id = defined(f.s.frameworkId);
      const offer = await f.offerFrom('e2e-agent-2');
      await f.s.launch(offer, [task('long', 'exec sleep 300'), task('brief', 'sleep 3; exit 0')]);
      await until(() => f.states('long').includes('RUNNING') && f.states('brief').includes('RUNNING'));
      expect(await defined(cp).stop('SIGTERM')).toBe(0);
      // 'brief' finishes while the control plane is down; the agent keeps the update on disk.
      const journal = path.join(dir, 'agent-2', 'updates');
      const pendingStates = () =>
        fs
          .readdirSync(journal)
          .filter((f) => f.endsWith('.json'))
          .map((f) => JSON.parse(fs.readFileSync(path.join(journal, f), 'utf8')) as { taskId: string; state: string });
      await until(
        () => pendingStates().some((u) => u.taskId === 'brief' && u.state === 'FINISHED'),
        20_000,
        "brief's FINISHED kept by the agent",
      );
      cp = await spawnControlPlane(env());
      await agentsUp(2);
      await until(() => f.states('brief').includes('FINISHED'), 30_000, 'FINISHED of brief delivered after the restart');
      const tasks = (await tasksOf({ frameworkId: id })).items;
      expect(Object.fromEntries(tasks.map((t) => [t.taskId, t.state]))).toEqual({ long: 'RUNNING', brief: 'FINISHED' });
      const brief = await taskView(tasks.find((t) => t.taskId === 'brief')?.id ?? '');
      expect(brief.history?.map((h) => h.state)).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
      expect((await frameworkView(id)).state).toBe('ACTIVE');

      // The framework itself goes away and comes back with its id: its task is still there.
      f.s.close();
      await until(async () => (await frameworkView(id)).state === 'DISCONNECTED');
      const back = await framework({ name: 'steady', roles: ['e2e'], failoverTimeoutSeconds: 120, frameworkId: id });
      expect(back.s.frameworkId).toBe(id);
      await back.s.reconcile(['long']);
      await until(() => back.states('long').includes('RUNNING'));
      await back.s.teardown();
    },
    120_000 * timeScale(),
  );

  it('loses the tasks of an agent killed with SIGKILL and rescinds its offers', async () => {
    const f = await framework({ name: 'witness', roles: ['e2e'] });
    await f.launchOn('e2e-agent-2', [task('doomed', 'exec sleep 300')], { refuseSeconds: 0 });
    await until(() => f.states('doomed').includes('RUNNING'));
    const pending = await f.offerFrom('e2e-agent-2');
    await agent2.stop('SIGKILL');
    await until(() => f.rescinded.includes(pending.id), 20_000, 'offer rescinded');
    await until(() => f.states('doomed').includes('LOST'), 20_000, 'task LOST');
    const agents = (await agentsOf({ hostname: 'e2e-agent-2' })).items;
    expect(agents[0].status).toBe('UNREACHABLE');
    await f.s.teardown();
  });
});
