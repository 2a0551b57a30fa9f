/**
 * A service with an HTTP health check, end to end with real processes: `arbiter control-plane`,
 * `arbiter agent` running the task, and a framework on the scheduler SDK that relaunches its
 * service whenever it ends. The first instance stops answering; its health check reports it
 * unhealthy and kills it (TASK_KILLED, healthy false, REASON_TASK_HEALTH_CHECK_STATUS_UPDATED),
 * and the framework's next instance runs healthy. The REST API shows each one's health.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isTerminalTaskState, type TaskSpec } from '@arbiter/contracts';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { apiClient, ok } from '../../support/client';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnSingleControlPlane } from '../../support/process';
import { until } from '../../support/until';

describe('a service restarted by its framework after its health check killed it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-health-'));
  // Tasks run as nobody under a root agent: their sandboxes must be reachable.
  fs.chmodSync(dir, 0o711);
  let agent: AgentProcess | undefined;
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let s: Scheduler | undefined;

  afterAll(async () => {
    s?.close();
    await agent?.killWithTasks();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is killed by its HTTP health check once it stops answering, and its framework runs it again', async () => {
    db = await freshDatabase();
    cp = await spawnSingleControlPlane(db.url);
    const service = await freePort();
    agent = new AgentProcess('health-agent-1', path.join(dir, 'agent'), `cpus:4;mem:2048;ports:[${service}-${service}]`);
    agent.start(cp.url, ADMIN_TOKEN);

    // The service: the first instance answers for 2 s, then hangs; the next ones answer on.
    const serve = (hangAfter?: number) =>
      `echo ok > index.html; busybox httpd -f -p 127.0.0.1:${service} -h . & web=$!; ` +
      (hangAfter ? `sleep ${hangAfter}; kill $web; while true; do sleep 1 & wait $!; done` : 'wait $web');
    const spec = (n: number): TaskSpec => ({
      taskId: `web-${n}`,
      name: 'web',
      command: { shell: serve(n === 1 ? 2 : undefined) },
      resources: [
        { name: 'cpus', value: 0.5 },
        { name: 'mem', value: 64 },
        { name: 'ports', ranges: [[service, service]] },
      ],
      healthCheck: {
        probe: { type: 'HTTP', port: service, path: '/index.html' },
        delaySeconds: 0,
        intervalSeconds: 0.3,
        timeoutSeconds: 1,
        gracePeriodSeconds: 10,
        consecutiveFailures: 3,
      },
      killPolicy: { gracePeriodSeconds: 1 },
    });

    // The framework: one instance at a time, a new one whenever the last one ended.
    const updates: StatusUpdate[] = [];
    let launched = 0;
    let running = false;
    const scheduler = new Scheduler({ master: cp.url, token: ADMIN_TOKEN, framework: { name: 'service', roles: ['web'] } });
    s = scheduler;
    scheduler.on('update', (u) => {
      updates.push(u);
      if (u.taskId === `web-${launched}` && isTerminalTaskState(u.state)) running = false;
    });
    scheduler.on('offers', (offers: Offer[]) => {
      const offer = offers.find((o) => o.resources.some((r) => r.name === 'ports'));
      // Calls still in flight when the test closes the scheduler end CONNECTION_LOST: ignored.
      if (running || !offer)
        return void scheduler
          .decline(
            offers.map((o) => o.id),
            { refuseSeconds: 0 },
          )
          .catch(() => undefined);
      running = true;
      launched++;
      void scheduler.launch(offer, [spec(launched)], { refuseSeconds: 0 }).catch(() => undefined);
    });
    await scheduler.start();

    const of = (id: string) => updates.filter((u) => u.taskId === id);
    await until(() => of('web-2').some((u) => u.healthy === true), 40_000, `web-2 healthy:\n${agent.log}`);
    expect(of('web-1').map((u) => [u.state, u.healthy, u.reason])).toEqual([
      ['STARTING', undefined, undefined],
      ['RUNNING', undefined, undefined],
      ['RUNNING', true, 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED'],
      ['RUNNING', false, 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED'],
      ['KILLED', false, 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED'],
    ]);
    expect(of('web-1').at(-1)?.message).toMatch(/^the health check failed 3 times in a row/);

    const client = apiClient(cp.url, ADMIN_TOKEN);
    const tasks = await ok(client.GET('/api/v1/tasks', { params: { query: {} } }));
    const byId = new Map(tasks.items.map((t) => [t.taskId, t]));
    expect(byId.get('web-1')).toMatchObject({ state: 'KILLED', healthy: false });
    expect(byId.get('web-2')).toMatchObject({ state: 'RUNNING', healthy: true });
  }, 90_000);
});
