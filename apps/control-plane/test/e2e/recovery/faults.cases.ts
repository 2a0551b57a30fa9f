/**
 * Faults injected on purpose, with real processes on real PostgreSQL: the database goes away
 * (through a TCP proxy the test cuts), an agent is paused past its timeout, the control plane
 * restarts under frameworks whose failover timeout is 0, and a rogue agent sends garbage. Each
 * test asserts on the final state in the API and on what the frameworks saw.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import type { Reply } from '@arbiter/contracts';
import { io } from 'socket.io-client';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { CuttableProxy, Launcher } from '../../support/faults';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnReplica } from '../../support/process';
import { defined, sleep, until } from '../../support/until';

const TERMINAL = new Set(['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR', 'DROPPED', 'GONE', 'GONE_BY_OPERATOR', 'UNREACHABLE']);

describe('faults: database outage, paused agent, restart, rogue agent', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-faults-'));
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> };
  let proxy: CuttableProxy;
  let cp: ControlPlaneProcess | undefined;
  let port = 0;
  const url = () => `http://127.0.0.1:${port}`;
  const agents = [
    new AgentProcess('fault-agent-1', path.join(dir, 'agent-1'), 'cpus:2;mem:2048'),
    new AgentProcess('fault-agent-2', path.join(dir, 'agent-2'), 'cpus:2;mem:2048'),
  ];
  const launchers: Launcher[] = [];

  const start = async () => {
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    cp = await spawnReplica(viaProxy.toString(), url(), {
      ARBITER_AGENT_TIMEOUT: '3',
      ARBITER_FRAMEWORK_RESUBSCRIBE_GRACE: '3',
      LOG_LEVEL: 'info',
    });
  };
  const api = async <T>(route: string): Promise<T> => {
    const res = await fetch(`${url()}${route}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (!res.ok) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const leading = async () => {
    try {
      const res = await fetch(`${url()}/health`, { signal: AbortSignal.timeout(1_000) });
      return ((await res.json()) as { role?: string }).role === 'leader';
    } catch {
      return false;
    }
  };
  const tasksOf = (l: Launcher) =>
    api<{ items: Array<{ id: string; taskId: string; state: string }> }>(`/api/v1/tasks?frameworkId=${defined(l.s.frameworkId)}&limit=500`);
  const frameworkState = async (l: Launcher) => (await api<{ state: string }>(`/api/v1/frameworks/${defined(l.s.frameworkId)}`)).state;
  const launcher = async (name: string, total: number, options: ConstructorParameters<typeof Launcher>[3] = {}) => {
    const l = new Launcher(name, url(), total, options);
    launchers.push(l);
    await l.s.start();
    return l;
  };
  /**
   * Every task of the launcher FINISHED, once (no LOST or KILLED on the way): the API's history of
   * each holds every update its agent sent (none lost), and what the framework saw is that
   * history, in order, down to FINISHED. An update the framework missed while it was cut off is
   * not sent again once a later one exists: the later one is (docs/mesos-compat.md, ACKNOWLEDGE).
   */
  const allFinished = async (l: Launcher) => {
    const tasks = (await tasksOf(l)).items;
    expect(tasks.map((t) => t.taskId).sort()).toEqual(Array.from({ length: l.total }, (_, i) => `${l.name}-${i}`).sort());
    expect(tasks.filter((t) => t.state !== 'FINISHED')).toEqual([]);
    for (const t of tasks) {
      const history = (await api<{ history: Array<{ state: string }> }>(`/api/v1/tasks/${t.id}`)).history.map((h) => h.state);
      expect([t.taskId, history]).toEqual([t.taskId, ['STARTING', 'RUNNING', 'FINISHED']]);
      const saw = l.statesOf(t.taskId);
      expect([t.taskId, saw.at(-1)]).toEqual([t.taskId, 'FINISHED']);
      expect([t.taskId, saw]).toEqual([t.taskId, history.filter((state) => saw.includes(state))]);
    }
  };

  beforeAll(async () => {
    db = await freshDatabase();
    const target = new URL(db.url);
    proxy = new CuttableProxy(target.hostname, Number(target.port || 5432));
    await proxy.listen();
    port = await freePort();
    await start();
    for (const a of agents) a.start(url(), ADMIN_TOKEN);
    await until(async () => (await api<{ total: number }>('/api/v1/agents?status=REACHABLE')).total === 2, 30_000, 'two agents');
  }, 120_000);

  afterAll(async () => {
    for (const l of launchers) l.s.close();
    for (const a of agents) {
      if (a.child?.signalCode === null) a.child.kill('SIGCONT');
      await a.killWithTasks();
    }
    await cp?.stop('SIGKILL');
    await proxy.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loses no status update across a database outage, and tears down a framework that left during it once the database is back', async () => {
    const steady = await launcher('steady', 12, { shell: 'sleep 1' });
    const leaving = await launcher('leaving', 2, { shell: 'sleep 0.2' });
    await until(() => steady.finished >= 3 && leaving.finished === 2, 30_000, 'tasks finishing before the outage');
    const leavingId = defined(leaving.s.frameworkId);

    // The database is cut for 6 s (past half the 4 s lease: the control plane steps down and
    // leads again once it is back); tasks end meanwhile and one framework goes away.
    proxy.partition();
    leaving.s.close();
    await sleep(6_000);
    proxy.heal();
    await until(leading, 30_000, 'the control plane leading again');

    await until(() => steady.finished === steady.total, 60_000, `every task FINISHED (${steady.finished}/${steady.total})`);
    await allFinished(steady);
    // Failover timeout 0: torn down once the re-subscription grace after the outage is over.
    await until(
      async () => (await api<{ state: string }>(`/api/v1/frameworks/${leavingId}`)).state === 'COMPLETED',
      30_000,
      'the framework that left torn down',
    );
    expect(await frameworkState(steady)).toBe('ACTIVE');
    expect(defined(cp).child.exitCode).toBeNull();
  }, 150_000);

  it('an agent paused past its timeout comes back by itself, and its framework hears one end of the task', async () => {
    const paused = agents[1];
    const watcher = await launcher('watcher', 0);
    watcher.hold = 1_000; // keeps its offers unanswered, to launch on the one it picks
    const agentId = async () =>
      (await api<{ items: Array<{ id: string; hostname: string }> }>('/api/v1/agents?hostname=fault-agent-2')).items[0].id;
    const id = await agentId();
    // A long task on the agent about to be paused.
    await until(() => watcher.held.some((o) => o.agentId === id), 20_000, 'an offer from the agent to pause');
    const offer = defined(watcher.held.find((o) => o.agentId === id));
    await watcher.s.launch(offer, [
      {
        taskId: 'long',
        name: 'long',
        command: { shell: 'exec sleep 300' },
        resources: Resources.fromScalars({ cpus: 0.1, mem: 8 }).toJSON(),
      },
    ]);
    await until(() => watcher.statesOf('long').includes('RUNNING'), 20_000, 'the long task RUNNING');

    defined(paused.child).kill('SIGSTOP');
    await until(
      async () => (await api<{ status: string }>(`/api/v1/agents/${id}`)).status === 'UNREACHABLE',
      20_000,
      'the paused agent unreachable',
    );
    defined(paused.child).kill('SIGCONT');
    await until(async () => (await api<{ status: string }>(`/api/v1/agents/${id}`)).status === 'REACHABLE', 30_000, 'the agent back');
    expect(paused.child?.exitCode).toBeNull();

    // The task was LOST when its agent went silent; the framework hears that end once, and no other.
    await until(() => watcher.statesOf('long').some((s) => TERMINAL.has(s)), 20_000, 'an end of the long task');
    await until(async () => (await api<{ total: number }>('/api/v1/agents?status=REACHABLE')).total === 2);
    const ends = watcher.statesOf('long').filter((s) => TERMINAL.has(s));
    expect(ends).toEqual(['LOST']);
    // Its offers back: offers kept unanswered hold their agents' resources from the next test's framework.
    watcher.hold = 0;
    await Promise.all(watcher.held.splice(0).map((o) => watcher.s.decline(o.id, { refuseSeconds: 0.2 }).catch(() => undefined)));
  }, 120_000);

  it('a restart under frameworks with failover timeout 0 kills none of their tasks', async () => {
    const quick = await launcher('quick', 8, { shell: 'sleep 2' });
    await until(() => quick.statesOf('quick-3').includes('RUNNING'), 30_000, 'tasks running before the restart');
    expect(await defined(cp).stop('SIGTERM')).toBe(0);
    await start();
    await until(() => quick.finished === quick.total, 60_000, `every task FINISHED (${quick.finished}/${quick.total})`);
    await allFinished(quick);
    expect(await frameworkState(quick)).toBe('ACTIVE');
  }, 150_000);

  it('a rogue agent sending garbage gets clear refusals and leaves the other agents and frameworks untouched', async () => {
    const rogue = io(`${url()}/agents`, { auth: { token: ADMIN_TOKEN }, transports: ['websocket'], forceNew: true, reconnection: false });
    await new Promise<void>((resolve, reject) => rogue.once('connect', resolve).once('connect_error', reject));
    const send = (event: string, payload: unknown) => rogue.timeout(10_000).emitWithAck(event, payload) as Promise<Reply>;
    const registered = (await send('register', { hostname: 'rogue', resources: [{ name: 'disk', value: 1 }] })) as Reply<{
      agentId: string;
    }>;
    expect(registered.ok).toBe(true);
    const rogueId = registered.ok ? registered.agentId : '';

    const honest = await launcher('honest', 10, { shell: 'sleep 0.2' });
    const nul = String.fromCharCode(0);
    const garbage: Array<[string, unknown]> = [];
    for (let i = 0; i < 30; i++) {
      const base = {
        updateUuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        frameworkId: defined(honest.s.frameworkId),
        taskId: `honest-${i % 10}`,
        agentId: rogueId,
        state: 'FAILED',
        timestamp: new Date().toISOString(),
        source: 'SOURCE_AGENT',
      };
      garbage.push(
        ['status', { ...base, message: `bad${nul}byte` }],
        ['status', { ...base, reason: `x${nul}` }],
        ['status', { ...base, state: 'NOT_A_STATE' }],
        ['status', { ...base, agentId: 'someone-else' }],
        ['status', 'not an object'],
        ['status', { ...base, message: 'x'.repeat(20_000) }],
        ['update', { resources: [{ name: 'cpus', value: -1 }] }],
        ['register', { hostname: nul, resources: [{ name: 'cpus', value: 1 }] }],
        ['heartbeat', [1, 2, 3]],
      );
    }
    const replies = await Promise.all(garbage.map(([event, payload]) => send(event, payload)));
    rogue.disconnect();
    const codes = replies.map((r) => (r.ok ? 'ok' : r.error.code));
    expect(codes).not.toContain('INTERNAL_ERROR');
    expect(codes.filter((c) => c !== 'ok').length).toBeGreaterThan(garbage.length / 2);

    await until(() => honest.finished === honest.total, 60_000, `every honest task FINISHED (${honest.finished}/${honest.total})`);
    await allFinished(honest);
    expect(defined(cp).child.exitCode).toBeNull();
  }, 120_000);
});
