/**
 * Health and general checks of real tasks (short real intervals): an HTTP health check of a
 * task that stops answering (healthy, then unhealthy, then killed with Mesos's state and the
 * reason), a TCP check, COMMAND checks run as the task's user in its cgroup, a general check
 * reporting its result without killing, and the kill policy's grace honoured for a check's kill.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Check, HealthCheck, LaunchTask, StatusUpdate } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { Agent } from '../../../src/agent';
import { FakeControlPlane, launchOf } from '../../support/fake-control-plane';
import { stopAgents, testAgent } from '../../support/test-agents';

const until = (check: () => boolean, what: string) => untilWithin(check, 20_000, what);
const HEALTH = 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED';
const CHECK = 'REASON_TASK_CHECK_STATUS_UPDATED';
/** Fast checks: a probe every 200 ms from the start, failures ignored until the first success. */
const fast = { delaySeconds: 0, intervalSeconds: 0.2, timeoutSeconds: 2 };

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A task running `shell` with the port it serves on and its checks. */
function task(
  taskId: string,
  shell: string,
  port: number,
  checks: { healthCheck?: HealthCheck; check?: Check; grace?: number },
): LaunchTask {
  const msg = launchOf(taskId, shell);
  return {
    ...msg,
    task: {
      ...msg.task,
      resources: [...msg.task.resources, { name: 'ports', ranges: [[port, port]] }],
      ...(checks.healthCheck ? { healthCheck: checks.healthCheck } : {}),
      ...(checks.check ? { check: checks.check } : {}),
      ...(checks.grace !== undefined ? { killPolicy: { gracePeriodSeconds: checks.grace } } : {}),
    },
  };
}

/** Serves its sandbox on `port` (busybox httpd) until a file `stop` appears, then stops answering but runs on. */
const server = (port: number) =>
  `echo ok > index.html; busybox httpd -f -p 127.0.0.1:${port} -h . & web=$!; ` +
  `while [ ! -e stop ]; do sleep 0.1; done; kill $web; while true; do sleep 1 & wait $!; done`;

describe('checks (real tasks)', () => {
  let dir: string;
  let cp: FakeControlPlane;
  let agent: Agent;
  const agents: Agent[] = [];
  /** The task's updates, each once: one sent again after a restart (its acknowledgement not yet seen) is the same update. */
  const updates = (taskId: string): StatusUpdate[] => [
    ...new Map(cp.statuses.filter((u) => u.taskId === taskId).map((u) => [u.updateUuid, u])).values(),
  ];
  const sandbox = (taskId: string) => agent.tasks.sandboxOf('fw', taskId);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir(), 'arbiter-checks-'));
    fs.chmodSync(dir, 0o711);
    cp = await FakeControlPlane.start();
    agent = testAgent(cp, path.join(dir, 'work'));
    agents.push(agent);
    agent.start();
    await until(() => cp.registered, 'the agent registered');
  });
  afterEach(async () => {
    await stopAgents(agents);
    await cp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an HTTP health check: healthy, then unhealthy once the task stops answering, then KILLED after the failures', async () => {
    const port = await freePort();
    const healthCheck: HealthCheck = {
      probe: { type: 'HTTP', port, path: '/index.html' },
      ...fast,
      gracePeriodSeconds: 10,
      consecutiveFailures: 3,
    };
    cp.launch(task('web', server(port), port, { healthCheck, grace: 0 }));
    await until(() => cp.last('web')?.healthy === true, 'healthy');
    expect(cp.last('web')).toMatchObject({ state: 'RUNNING', healthy: true, reason: HEALTH });
    fs.writeFileSync(path.join(sandbox('web'), 'stop'), '');
    await until(() => cp.last('web')?.state === 'KILLED', 'killed by its health check');
    const told = updates('web').map((u) => [u.state, u.healthy, u.reason]);
    expect(told).toEqual([
      ['STARTING', undefined, undefined],
      ['RUNNING', undefined, undefined],
      ['RUNNING', true, HEALTH],
      ['RUNNING', false, HEALTH],
      ['KILLED', false, HEALTH],
    ]);
    expect(cp.last('web')?.message).toMatch(
      /^the health check failed 3 times in a row \(last: GET http:\/\/127\.0\.0\.1:\d+\/index\.html: /,
    );
  });

  it('a TCP health check of a listening task; a general TCP check of a closed port reports it, never kills', async () => {
    const [port, closed] = [await freePort(), await freePort()];
    const healthCheck: HealthCheck = { probe: { type: 'TCP', port }, ...fast };
    const check: Check = { probe: { type: 'TCP', port: closed }, ...fast };
    cp.launch(task('tcp', server(port), port, { healthCheck, check }));
    await until(() => cp.last('tcp')?.healthy === true, 'healthy');
    await until(() => updates('tcp').some((u) => u.checkStatus?.succeeded === false), 'the closed port reported');
    const reported = updates('tcp').find((u) => u.reason === CHECK);
    expect(reported).toMatchObject({ state: 'RUNNING', checkStatus: { type: 'TCP', succeeded: false } });
    // The general check's status goes with every later update, and the task runs on.
    expect(updates('tcp')[1]).toMatchObject({ state: 'RUNNING', checkStatus: { type: 'TCP' } });
    expect(cp.last('tcp')?.state).toBe('RUNNING');
  });

  it('COMMAND checks run as the task user, in its sandbox and cgroup; the general one reports exit codes without killing', async () => {
    const port = await freePort();
    const healthCheck: HealthCheck = {
      probe: { type: 'COMMAND', command: { shell: 'id -u > check-uid; cat /proc/self/cgroup > check-cgroup; test -e ready' } },
      ...fast,
    };
    const check: Check = { probe: { type: 'COMMAND', command: { shell: 'exit $(cat code)' } }, ...fast };
    const shell =
      'id -u > task-uid; cat /proc/self/cgroup > task-cgroup; echo 0 > code; touch ready; while true; do sleep 1 & wait $!; done';
    cp.launch(task('cmd', shell, port, { healthCheck, check }));
    await until(() => cp.last('cmd')?.healthy === true, 'healthy');
    await until(() => updates('cmd').some((u) => u.checkStatus?.exitCode === 0), 'exit code 0 reported');
    const read = (f: string) => fs.readFileSync(path.join(sandbox('cmd'), f), 'utf8');
    expect(read('check-uid')).toBe(read('task-uid'));
    expect(read('check-cgroup')).toBe(read('task-cgroup'));
    fs.writeFileSync(path.join(sandbox('cmd'), 'code'), '3\n');
    await until(() => updates('cmd').some((u) => u.checkStatus?.exitCode === 3), 'exit code 3 reported');
    expect(
      updates('cmd')
        .filter((u) => u.reason === CHECK)
        .map((u) => u.checkStatus),
    ).toEqual([
      { type: 'COMMAND', exitCode: 0 },
      { type: 'COMMAND', exitCode: 3 },
    ]);
    expect(cp.last('cmd')).toMatchObject({ state: 'RUNNING', healthy: true });
  });

  it("a health check's kill honours the kill policy's grace: SIGTERM, then SIGKILL after it", async () => {
    const port = await freePort();
    const healthCheck: HealthCheck = { probe: { type: 'COMMAND', command: { shell: 'test ! -e sick' } }, ...fast, consecutiveFailures: 1 };
    const shell = `trap 'date +%s%N > term' TERM; touch started; while true; do sleep 1 & wait $!; done`;
    cp.launch(task('graceful', shell, port, { healthCheck, grace: 1.5 }));
    await until(() => cp.last('graceful')?.healthy === true, 'healthy');
    fs.writeFileSync(path.join(sandbox('graceful'), 'sick'), '');
    await until(() => cp.last('graceful')?.state === 'KILLED', 'killed by its health check');
    const unhealthy = updates('graceful').find((u) => u.healthy === false);
    const killed = cp.last('graceful');
    expect(killed).toMatchObject({ state: 'KILLED', healthy: false, reason: HEALTH });
    // It saw the SIGTERM and ran on until the SIGKILL, the grace later.
    expect(fs.existsSync(path.join(sandbox('graceful'), 'term'))).toBe(true);
    const took = Date.parse(killed?.timestamp ?? '') - Date.parse(unhealthy?.timestamp ?? '');
    expect(took).toBeGreaterThanOrEqual(1_400);
  });

  it("after an agent restart, a recovered task's checks go on from what they told: no repeat, and a later failure kills", async () => {
    const port = await freePort();
    const healthCheck: HealthCheck = {
      probe: { type: 'COMMAND', command: { shell: 'echo >> probes; test ! -e sick' } },
      ...fast,
      consecutiveFailures: 1,
    };
    cp.launch(task('kept', 'while true; do sleep 1 & wait $!; done', port, { healthCheck, grace: 0 }));
    await until(() => cp.last('kept')?.healthy === true, 'healthy');
    await agent.stop();
    agents.splice(agents.indexOf(agent), 1);
    agent = testAgent(cp, path.join(dir, 'work'));
    agents.push(agent);
    agent.start();
    await until(() => cp.registrations.length === 2, 'the agent registered again');
    const probes = () => fs.readFileSync(path.join(sandbox('kept'), 'probes'), 'utf8').length;
    const from = probes();
    await until(() => probes() >= from + 3, 'three probes by the restarted agent');
    expect(
      updates('kept')
        .filter((u) => u.reason === HEALTH)
        .map((u) => u.healthy),
    ).toEqual([true]);
    fs.writeFileSync(path.join(sandbox('kept'), 'sick'), '');
    await until(() => cp.last('kept')?.state === 'KILLED', 'killed by its health check');
    expect(
      updates('kept')
        .filter((u) => u.reason === HEALTH)
        .map((u) => [u.state, u.healthy]),
    ).toEqual([
      ['RUNNING', true],
      ['RUNNING', false],
      ['KILLED', false],
    ]);
  });
});
