/**
 * A paused leader (SIGSTOP) with real processes: three replicas, an agent and a framework on
 * the SDK, given every replica's URL. The paused leader's kernel still accepts connections and
 * keeps the open ones, but nothing answers: the clients must notice (the pings stop), leave it
 * for the other replicas and reach the new leader within seconds of its election, not after
 * socket.io's 30 s ping and 20 s connect timeouts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { Launcher } from '../../support/faults';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnReplica } from '../../support/process';
import { until } from '../../support/until';

async function role(url: string): Promise<{ role: string; epoch: number | null } | undefined> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) });
    return (await res.json()) as { role: string; epoch: number | null };
  } catch {
    return undefined;
  }
}

describe('a paused leader', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-pause-'));
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> };
  const replicas: Array<{ url: string; process: ControlPlaneProcess }> = [];
  const agent = new AgentProcess('pause-agent', path.join(dir, 'agent'), 'cpus:2;mem:1024');
  let launcher: Launcher | undefined;

  beforeAll(async () => {
    db = await freshDatabase();
    // One at a time: the first leads.
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const process = await spawnReplica(db.url, url, {
        // The defaults are 5 s and 5 s; the lease is shortened here too, keeping their ratio.
        ARBITER_PING_INTERVAL: '2',
        ARBITER_PING_TIMEOUT: '2',
      });
      replicas.push({ url, process });
    }
  }, 120_000);

  afterAll(async () => {
    launcher?.s.close();
    for (const r of replicas) r.process.child.kill('SIGCONT');
    await agent.killWithTasks();
    for (const r of replicas) await r.process.stop('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loses its agent and framework to the new leader within seconds of its election; a launch succeeds there', async () => {
    const masters = replicas.map((r) => r.url).join(',');
    expect((await role(replicas[0].url))?.role).toBe('leader');
    agent.start(masters, ADMIN_TOKEN);
    launcher = new Launcher('paused', masters, 2);
    const l = launcher;
    await l.s.start();
    await until(() => l.finished === 2, 30_000, 'tasks finishing under the first leader');

    const old = replicas[0];
    old.process.child.kill('SIGSTOP');
    const pausedAt = Date.now();
    try {
      // PostgreSQL ends the paused leader's silent session after the lease (4 s); a standby leads.
      let electedAt = 0;
      await until(
        async () => {
          for (const r of replicas.slice(1)) if ((await role(r.url))?.role === 'leader') electedAt ||= Date.now();
          return electedAt > 0;
        },
        20_000,
        'a standby to lead',
      );
      l.more(1);
      await until(() => l.finished === 3, 30_000, 'a task launched and finished under the new leader');
      const afterElectionMs = Date.now() - electedAt;
      // Within seconds of the election: before, 30 s of pings and a 20 s connect timeout.
      expect(afterElectionMs).toBeLessThan(8_000);
      expect(Date.now() - pausedAt).toBeLessThan(15_000);
    } finally {
      old.process.child.kill('SIGCONT');
    }
    // Resumed, the old leader finds its term over and stays a standby.
    await until(
      async () => {
        const h = await role(old.url);
        return h?.role === 'standby' && (h.epoch ?? 0) > 1;
      },
      20_000,
      'the old leader back as a standby of the new term',
    );
  }, 120_000);
});
