/**
 * An agent's health (what keeps it from running new tasks: its disk reserve in use, its journal
 * unwritable) reaches the control plane with its registration and heartbeats, is validated,
 * and shows on the agent, on the leader and on a standby.
 */
import type { AgentHealth, Reply } from '@arbiter/contracts';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, startTestControlPlane, stopStarted, type TestControlPlane } from '../support/app';
import { ok } from '../support/client';
import { ProtocolAgent } from '../support/fake-agent';
import { freshDatabase } from '../support/postgres';
import { until } from '../support/until';

const RESERVE_IN_USE: AgentHealth = {
  ok: false,
  problems: [{ code: 'DISK_RESERVE_IN_USE', message: 'its work directory /w has 1.0 MiB free, under the 32.0 MiB it keeps' }],
};

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
