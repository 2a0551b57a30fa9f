/**
 * Kill policy and max completion time with real processes: `arbiter control-plane`, `arbiter
 * agent` running the tasks, and a framework speaking Mesos's v1 scheduler API. A task past its
 * max_completion_time ends TASK_FAILED with REASON_MAX_COMPLETION_TIME_REACHED; a KILL that names
 * no grace period gives a task that ignores SIGTERM its kill_policy's before SIGKILL.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { MesosClient, shellTaskInfo } from '../../support/mesos-client';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnSingleControlPlane } from '../../support/process';
import { until } from '../../support/until';

interface Status {
  task_id: { value: string };
  state: string;
  reason?: string;
  message?: string;
  uuid?: string;
}

describe('kill policy and max completion time, on a real agent', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-fields-'));
  // Tasks run as nobody under a root agent: their sandboxes must be reachable.
  fs.chmodSync(dir, 0o711);
  const agent = new AgentProcess('fields-agent-1', path.join(dir, 'agent'), 'cpus:4;mem:2048');
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let c: MesosClient | undefined;

  afterAll(async () => {
    c?.close();
    await agent.stop();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fails a task past its max completion time, and kills with the grace period of its kill policy', async () => {
    db = await freshDatabase();
    cp = await spawnSingleControlPlane(db.url);
    agent.start(cp.url, ADMIN_TOKEN);
    const m = new MesosClient(cp.url, `Bearer ${ADMIN_TOKEN}`);
    c = m;
    expect(await m.subscribe({ user: 'nobody', name: 'fields', role: 'analytics', capabilities: [{ type: 'TASK_KILLING_STATE' }] })).toBe(
      200,
    );
    const offers = () => m.of<{ offers: Array<{ id: { value: string }; agent_id: { value: string } }> }>('OFFERS').flatMap((e) => e.offers);
    await until(() => offers().length > 0, `an offer:\n${agent.log}`);
    const offer = offers()[0];
    // Each update once: an update not acknowledged within a second is sent again with its uuid (at
    // least once, as Mesos delivers them), which a loaded machine can leave time for between two.
    const statuses = (id: string) => {
      const all = m
        .of<{ status: Status }>('UPDATE')
        .map((e) => e.status)
        .filter((s) => s.task_id.value === id);
      return all.filter((s, i) => s.uuid === undefined || all.findIndex((o) => o.uuid === s.uuid) === i);
    };
    const task = (id: string, shell: string, extra: Record<string, unknown>) => shellTaskInfo(offer, id, shell, extra);
    const accepted = await m.launch(
      [offer.id],
      [
        task('bounded', 'sleep 600', { max_completion_time: { nanoseconds: 1_500_000_000 } }),
        // Ignores SIGTERM: only the SIGKILL after the grace period ends it.
        task('stubborn', 'trap "" TERM; touch "$MESOS_SANDBOX/trapped"; while true; do sleep 0.1; done', {
          kill_policy: { grace_period: { nanoseconds: 1_000_000_000 } },
        }),
      ],
    );
    expect(accepted.status).toBe(202);
    await until(() => statuses('bounded').some((s) => s.state === 'TASK_FAILED'), `the bounded task to fail:\n${agent.log}`);
    expect(statuses('bounded').map((s) => s.state)).toEqual(['TASK_STARTING', 'TASK_RUNNING', 'TASK_FAILED']);
    expect(statuses('bounded').at(-1)).toMatchObject({ reason: 'REASON_MAX_COMPLETION_TIME_REACHED' });

    // RUNNING comes once the wrapper is forked: the kill waits until the command ignores SIGTERM.
    const trapped = () => {
      try {
        return fs.readdirSync(path.join(dir, 'agent'), { recursive: true, encoding: 'utf8' }).some((f) => path.basename(f) === 'trapped');
      } catch {
        return false;
      }
    };
    await until(trapped, `the stubborn task to trap SIGTERM:\n${agent.log}`);
    // Wall-clock on purpose: the grace period is real time between two signals to a real process.
    const t0 = Date.now();
    expect((await m.call('KILL', { kill: { task_id: { value: 'stubborn' } } })).status).toBe(202);
    await until(() => statuses('stubborn').some((s) => s.state === 'TASK_KILLED'), `the stubborn task to be killed:\n${agent.log}`);
    const took = Date.now() - t0;
    expect(statuses('stubborn').map((s) => s.state)).toEqual(['TASK_STARTING', 'TASK_RUNNING', 'TASK_KILLING', 'TASK_KILLED']);
    // SIGTERM did nothing; the SIGKILL came after the policy's 1 s, well before the default 5 s.
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(4500);
  });
});
