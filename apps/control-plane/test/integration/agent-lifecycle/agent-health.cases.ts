/**
 * An agent's health (what keeps it from running new tasks: its disk reserve in use, its journal
 * unwritable) reaches the control plane with its registration and heartbeats, is validated,
 * and shows on the agent, on the leader and on a standby.
 */
import type { AgentHealth, Reply } from '@arbiter/contracts';
import { principal } from '@arbiter/test-support';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, startTestControlPlane, stopStarted, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { freshDatabase } from '../../support/postgres';
import { until } from '../../support/until';

const RESERVE_IN_USE: AgentHealth = {
  ok: false,
  problems: [{ code: 'DISK_RESERVE_IN_USE', message: 'its work directory /w has 1.0 MiB free, under the 32.0 MiB it keeps' }],
};

const DISK = { totalBytes: 250 * 1024 ** 3, freeBytes: 80 * 1024 ** 3, gcHeadroom: 0.1 };

describe('agent health', () => {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let leader: TestControlPlane;
  let standby: TestControlPlane;
  const agents: ProtocolAgent[] = [];

  beforeAll(async () => {
    db = await freshDatabase();
    // Two replicas start in this process, and the second's start holds the event loop for seconds
    // on a loaded machine: a lease that such a stall cannot expire (these tests are not about it).
    leader = await startTestControlPlane({ databaseUrl: db.url, config: { leaderLease: 30 } });
    standby = await startTestControlPlane({ databaseUrl: db.url, config: { leaderLease: 30 } });
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const a of agents) a.close();
    await stopStarted(standby, leader);
    await db?.drop();
  }, STARTUP_TIMEOUT_MS);

  const agentView = async (t: TestControlPlane, id: string) => ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id } } }));
  const heartbeat = (a: ProtocolAgent, msg: unknown) => a.socket.timeout(5_000).emitWithAck('heartbeat', msg) as Promise<Reply>;

  it('is stored from the registration and from each heartbeat that changes it, and shown on the leader and standbys', async () => {
    const a = new ProtocolAgent(leader.cp.url, ADMIN_TOKEN, {
      hostname: 'health-1',
      resources: [{ name: 'cpus', value: 1 }],
      attributes: {},
      health: { ok: true, problems: [] },
    });
    agents.push(a);
    const id = await a.register();
    expect((await agentView(leader, id)).health).toEqual({ ok: true, problems: [] });

    expect(await heartbeat(a, { health: RESERVE_IN_USE })).toEqual({ ok: true });
    await until(async () => (await agentView(standby, id)).health?.ok === false, 5_000, 'the standby to show the problem');
    expect((await agentView(leader, id)).health).toEqual(RESERVE_IN_USE);

    // A heartbeat that says nothing of health leaves it as it was.
    expect(await heartbeat(a, {})).toEqual({ ok: true });
    expect((await agentView(leader, id)).health).toEqual(RESERVE_IN_USE);

    expect(await heartbeat(a, { health: { ok: true, problems: [] } })).toEqual({ ok: true });
    await until(async () => (await agentView(leader, id)).health?.ok === true, 5_000, 'the agent healthy again');
  });

  it("carries the sandboxes' disk: shown with the agent to whoever may read agents, on the leader and standbys", async () => {
    const a = new ProtocolAgent(leader.cp.url, ADMIN_TOKEN, {
      hostname: 'health-disk',
      resources: [{ name: 'cpus', value: 1 }],
      attributes: {},
      health: { ok: true, problems: [], sandboxDisk: DISK },
    });
    agents.push(a);
    const id = await a.register();
    expect((await agentView(leader, id)).health).toEqual({ ok: true, problems: [], sandboxDisk: DISK });
    const fuller = { ...DISK, freeBytes: 1024 ** 3 };
    expect(await heartbeat(a, { health: { ok: true, problems: [], sandboxDisk: fuller } })).toEqual({ ok: true });
    await until(async () => (await agentView(standby, id)).health?.sandboxDisk?.freeBytes === fuller.freeBytes, 5_000, 'the standby');
    // A viewer reads it as it reads the agent; an agent's or a framework's principal (no read) sees neither.
    const api = { url: leader.cp.url, token: ADMIN_TOKEN };
    const viewer = await leader.request('GET', `/api/v1/agents/${id}`, undefined, { token: await principal(api, 'disk-viewer', 'VIEWER') });
    expect([viewer.status, JSON.stringify(viewer.body)]).toEqual([200, expect.stringContaining(`"freeBytes":${fuller.freeBytes}`)]);
    for (const kind of ['AGENT', 'FRAMEWORK']) {
      const token = await principal(api, `disk-${kind.toLowerCase()}`, kind);
      const refused = await leader.request('GET', `/api/v1/agents/${id}`, undefined, { token });
      expect([refused.status, JSON.stringify(refused.body)]).toEqual([403, expect.not.stringContaining('freeBytes')]);
    }
  });

  it('refuses a malformed health with INVALID_MESSAGE and changes nothing', async () => {
    const a = new ProtocolAgent(leader.cp.url, ADMIN_TOKEN, {
      hostname: 'health-2',
      resources: [{ name: 'cpus', value: 1 }],
      attributes: {},
    });
    agents.push(a);
    const id = await a.register();
    // An agent that never said: null.
    expect((await agentView(leader, id)).health).toBeNull();
    for (const bad of [
      { health: { ok: 'no', problems: [] } },
      { health: { ok: false, problems: [{ code: 'DISK_FULL', message: 'x' }] } },
      { health: { ok: true, problems: RESERVE_IN_USE.problems } },
      { health: { ok: false, problems: [] } },
      { health: { ...RESERVE_IN_USE, extra: 1 } },
      { health: { ok: true, problems: [], sandboxDisk: { ...DISK, freeBytes: DISK.totalBytes + 1 } } },
      { health: { ok: true, problems: [], sandboxDisk: { ...DISK, gcHeadroom: 2 } } },
      { health: { ok: true, problems: [], sandboxDisk: { ...DISK, totalBytes: -1 } } },
      { health: { ok: true, problems: [], sandboxDisk: { ...DISK, extra: 1 } } },
      { health: { ok: false, problems: [{ code: 'DISK_RESERVE_IN_USE', message: 'x'.repeat(1001) }] } },
      { unknown: true },
    ]) {
      const reply = await heartbeat(a, bad);
      expect({ bad, code: reply.ok ? null : reply.error.code }).toEqual({ bad, code: 'INVALID_MESSAGE' });
    }
    expect((await agentView(leader, id)).health).toBeNull();
    expect(a.socket.connected).toBe(true);
  });

  it('is refused in a registration when malformed', async () => {
    const a = new ProtocolAgent(leader.cp.url, ADMIN_TOKEN, {
      hostname: 'health-3',
      resources: [{ name: 'cpus', value: 1 }],
      attributes: {},
      health: { ok: true, problems: RESERVE_IN_USE.problems },
    });
    agents.push(a);
    await expect(a.register()).rejects.toThrow(/health/);
  });
});
