/**
 * High availability with real processes on real PostgreSQL: three control-plane replicas, two
 * agents, two frameworks on the SDK given every replica's URL. The leader is SIGKILLed while
 * tasks launch; then the leader is cut off from the database through a TCP proxy.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import { timeScale } from '@arbiter/test-support';
import { Client } from 'pg';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { CuttableProxy, Launcher } from '../../support/faults';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, getAsAdmin, spawnReplica } from '../../support/process';
import { defined, until } from '../../support/until';

interface Health {
  role: 'leader' | 'standby';
  leader: string | null;
  epoch: number | null;
}

/** A replica's /health, or undefined when it does not answer within a second (scaled to the machine's load). */
async function health(url: string): Promise<Health | undefined> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000 * timeScale()) });
    return (await res.json()) as Health;
  } catch {
    return undefined;
  }
}

describe('high availability: three replicas, two agents, two frameworks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-ha-'));
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> };
  let proxy: CuttableProxy;
  const replicas: Array<{ port: number; url: string; process?: ControlPlaneProcess; viaProxy: boolean }> = [];
  const agents = [
    new AgentProcess('ha-agent-1', path.join(dir, 'agent-1'), 'cpus:2;mem:2048'),
    new AgentProcess('ha-agent-2', path.join(dir, 'agent-2'), 'cpus:2;mem:2048'),
  ];
  const launchers: Launcher[] = [];
  const masters = () => replicas.map((r) => r.url).join(',');

  const startReplica = async (r: (typeof replicas)[number]) => {
    const url = new URL(db.url);
    if (r.viaProxy) url.port = String(proxy.port);
    r.process = await spawnReplica(url.toString(), r.url);
  };
  const leaderNow = async () => {
    for (const r of replicas) if (r.process?.child.exitCode === null && (await health(r.url))?.role === 'leader') return r;
    return undefined;
  };

  beforeAll(async () => {
    db = await freshDatabase();
    const target = new URL(db.url);
    proxy = new CuttableProxy(target.hostname, Number(target.port || 5432));
    await proxy.listen();
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      // The first replica reaches the database through the proxy: it leads first and is the one cut off later.
      replicas.push({ port, url: `http://127.0.0.1:${port}`, viaProxy: i === 0 });
    }
    // One at a time: the first leads.
    for (const r of replicas) await startReplica(r);
  }, 120_000);

  afterAll(async () => {
    for (const l of launchers) l.s.close();
    for (const a of agents) await a.killWithTasks();
    for (const r of replicas) await r.process?.stop('SIGKILL');
    await proxy.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('one replica leads; the others are standbys naming it', async () => {
    const roles = await Promise.all(replicas.map((r) => health(r.url)));
    expect(roles.map((h) => h?.role)).toEqual(['leader', 'standby', 'standby']);
    expect(roles.map((h) => h?.leader)).toEqual([replicas[0].url, replicas[0].url, replicas[0].url]);
  });

  it('survives a SIGKILL of the leader while tasks launch: nothing lost, nothing offered twice', async () => {
    for (const a of agents) a.start(masters(), ADMIN_TOKEN);
    await until(async () => (await getAsAdmin<{ total: number }>(replicas[1].url, '/api/v1/agents?status=REACHABLE')).total === 2);
    const total = 30;
    for (const name of ['alpha', 'beta']) {
      const l = new Launcher(name, masters(), total);
      launchers.push(l);
      await l.s.start();
    }
    const [alpha, beta] = launchers;
    await until(() => alpha.finished >= 5 && beta.finished >= 5, 30_000, 'tasks finishing before the failover');
    // alpha keeps its next offer unanswered across the failover.
    alpha.hold = 1;
    await until(() => alpha.held.length === 1, 10_000, 'an offer held');
    const old = defined(await leaderNow());
    const killedAt = Date.now();
    await defined(old.process).stop('SIGKILL');
    await until(async () => (await leaderNow()) !== undefined, 15_000, 'a new leader');
    const failoverMs = Date.now() - killedAt;
    const leader = defined(await leaderNow());
    expect(leader.url).not.toBe(old.url);
    expect((await health(leader.url))?.epoch).toBe(2);
    expect(failoverMs).toBeLessThan(10_000);

    // The offer the old leader made is void: using it is refused, clearly (the call waits for
    // the framework to have subscribed again, to the new leader).
    const stale = alpha.s.launch(alpha.held[0], [
      { taskId: 'stale', name: 'stale', command: { shell: 'true' }, resources: Resources.fromScalars({ cpus: 0.1, mem: 8 }).toJSON() },
    ]);
    await expect(stale).rejects.toMatchObject({ code: 'OFFER_STALE', details: { state: 'RESCINDED' } });
    expect(alpha.held).toHaveLength(1);

    await until(
      () => alpha.finished === total && beta.finished === total,
      90_000,
      `every task FINISHED (alpha ${alpha.finished}, beta ${beta.finished})`,
    );

    for (const l of launchers) {
      const page = await getAsAdmin<{ items: Array<{ id: string; taskId: string; state: string }>; total: number }>(
        leader.url,
        `/api/v1/tasks?frameworkId=${defined(l.s.frameworkId)}&limit=500`,
      );
      // Every task it launched, once, FINISHED: none LOST or KILLED by the failover.
      expect(page.items.map((t) => t.taskId).sort()).toEqual(Array.from({ length: total }, (_, i) => `${l.name}-${i}`).sort());
      expect(page.items.filter((t) => t.state !== 'FINISHED')).toEqual([]);
      for (const t of page.items) {
        const view = await getAsAdmin<{ history: Array<{ state: string; acknowledgedAt: string | null }> }>(
          leader.url,
          `/api/v1/tasks/${t.id}`,
        );
        // One history: what the framework saw is the API's, in order, down to its last state. An
        // update lost with the old leader is not sent again once a later one exists: the later
        // one is (docs/mesos-compat.md, ACKNOWLEDGE).
        const history = view.history.map((h) => h.state);
        const saw = l.statesOf(t.taskId);
        expect([t.taskId, saw.at(-1)]).toEqual([t.taskId, history.at(-1)]);
        expect([t.taskId, saw.filter((state) => history.includes(state))]).toEqual([t.taskId, saw]);
        expect([t.taskId, saw]).toEqual([t.taskId, history.filter((state) => saw.includes(state))]);
        // An update seen again was not yet acknowledged when it came again.
        const seen = new Map<string, number>();
        for (const { update, at } of l.updates.filter((u) => u.update.taskId === t.taskId)) {
          const first = seen.get(update.updateUuid);
          if (first === undefined) seen.set(update.updateUuid, at);
          else {
            const acked = view.history.find((h) => h.state === update.state)?.acknowledgedAt;
            expect([t.taskId, update.state, acked ? at <= Date.parse(acked) + 50 : true]).toEqual([t.taskId, update.state, true]);
          }
        }
      }
    }

    // No resources were offered twice at once: on each agent, the offers open at any moment fit it.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ agent_id: string; at: Date; cpus: number }>(
        `SELECT o.agent_id, o.created_at AS at,
                (SELECT sum((r->>'value')::float8) FROM offers p, jsonb_array_elements(p.resources) r
                  WHERE p.agent_id = o.agent_id AND r->>'name' = 'cpus'
                    AND p.created_at <= o.created_at AND (p.closed_at IS NULL OR p.closed_at > o.created_at)) AS cpus
           FROM offers o`,
      );
      expect(rows.length).toBeGreaterThan(20);
      expect(rows.filter((r) => r.cpus > 2 + 1e-9)).toEqual([]);
    } finally {
      await pg.end();
    }
  }, 180_000);

  it('a leader cut off from the database steps down, a standby takes over, and it comes back as a standby', async () => {
    // The replica behind the proxy leads again: the others stop, it starts, then they start again.
    const proxied = replicas[0];
    const others = replicas.filter((r) => r !== proxied);
    for (const r of others) await r.process?.stop('SIGTERM');
    await startReplica(proxied);
    await until(async () => (await health(proxied.url))?.role === 'leader', 20_000, 'the proxied replica to lead');
    for (const r of others) await startReplica(r);
    const epoch = defined((await health(proxied.url))?.epoch);

    proxy.partition();
    const cutAt = Date.now();
    // It steps down within half the lease (4 s) and says so.
    await until(() => defined(proxied.process).output().includes('no longer the leader'), 10_000, 'the cut-off leader to step down');
    const steppedDownMs = Date.now() - cutAt;
    await until(async () => (await leaderNow()) !== undefined && (await leaderNow()) !== proxied, 20_000, 'a standby to take over');
    const next = defined(await leaderNow());
    expect((await health(next.url))?.epoch).toBe(epoch + 1);
    expect(steppedDownMs).toBeLessThan(6_000);

    // The agents and frameworks follow the new leader: a task launches and finishes.
    const [alpha] = launchers;
    const before = alpha.finished;
    alpha.more(2);
    await until(() => alpha.finished === before + 2, 60_000, 'tasks launched under the new leader');

    proxy.heal();
    await until(
      async () => (await health(proxied.url))?.role === 'standby' && (await health(proxied.url))?.epoch === epoch + 1,
      20_000,
      'the old leader back as a standby',
    );

    // Nothing the old leader did reached the database once the new term began.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ late: string }>(
        `SELECT count(*) AS late FROM allocation_cycles c
          WHERE c.leader LIKE $1 || ' (term ' || $2 || ')%' AND c.started_at >= (SELECT started_at FROM leader_terms WHERE epoch = $3)`,
        [proxied.url, epoch, epoch + 1],
      );
      expect(Number(rows[0].late)).toBe(0);
    } finally {
      await pg.end();
    }
  }, 180_000);
});
