/**
 * Checks of image tasks with real processes: their COMMAND checks run inside the task's container
 * (`runc exec`), so they see the image's files and the task's own /tmp, run in the container's
 * cgroups, and are killed with what they started when they time out. The image is a busybox root
 * filesystem made here (test/support/busybox-image.ts). Needs root and runc (the CI has both);
 * elsewhere it checks that such a task fails before any check could run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Check, HealthCheck, LaunchTask, StatusUpdate } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { Agent } from '../../../src/agent';
import { systemTool } from '../../../src/containerizer/tools';
import { BusyboxProvisioner } from '../../support/busybox-image';
import { FakeControlPlane, launchOf } from '../../support/fake-control-plane';
import { stopAgents, testAgent } from '../../support/test-agents';

const until = (check: () => boolean, what: string) => untilWithin(check, 20_000, what);
const canRun = process.getuid?.() === 0 && systemTool('runc') !== undefined;
const HEALTH = 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED';
const CHECK = 'REASON_TASK_CHECK_STATUS_UPDATED';
const fast = { delaySeconds: 0, intervalSeconds: 0.2, timeoutSeconds: 5 };
const forever = 'while true; do sleep 1 & wait $!; done';

describe('checks of tasks in containers (real processes)', () => {
  let dir: string;
  let cp: FakeControlPlane;
  let agent: Agent;
  const agents: Agent[] = [];
  const updates = (taskId: string): StatusUpdate[] => [
    ...new Map(cp.statuses.filter((u) => u.taskId === taskId).map((u) => [u.updateUuid, u])).values(),
  ];
  const sandbox = (taskId: string) => agent.tasks.sandboxOf('fw', taskId);
  const read = (taskId: string, f: string) => fs.readFileSync(path.join(sandbox(taskId), f), 'utf8');
  const launch = (taskId: string, shell: string, checks: { healthCheck?: HealthCheck; check?: Check }) => {
    const msg = launchOf(taskId, shell);
    const task: LaunchTask['task'] = {
      ...msg.task,
      ...checks,
      container: { type: 'MESOS', image: { name: 'busybox:test' } },
      killPolicy: { gracePeriodSeconds: 0 },
    };
    cp.launch({ ...msg, task });
  };
  /** Host processes whose command line is `argv` (by /proc). */
  const processes = (argv: string[]) =>
    fs.readdirSync('/proc').filter((p) => {
      try {
        return /^\d+$/.test(p) && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === `${argv.join('\0')}\0`;
      } catch {
        return false;
      }
    });

  beforeEach(async () => {
    dir = fs.mkdtempSync('/var/tmp/arbiter-container-checks-');
    fs.chmodSync(dir, 0o711);
    cp = await FakeControlPlane.start();
    agent = testAgent(cp, path.join(dir, 'work'), { tasks: { provisioner: new BusyboxProvisioner(path.join(dir, 'image')) } });
    agents.push(agent);
    agent.start();
    await until(() => cp.registered, 'the agent registered');
  });
  afterEach(async () => {
    await stopAgents(agents);
    agents.splice(0);
    await cp.close();
    const mounted = () => fs.readFileSync('/proc/self/mountinfo', 'utf8').includes(dir);
    await until(() => !mounted(), 'every container unmounted');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  if (!canRun) {
    it('fails an image task with a reason where runc cannot run, so no check of it runs', async () => {
      launch('img', forever, { healthCheck: { probe: { type: 'COMMAND', command: { shell: 'true' } }, ...fast } });
      await until(() => cp.last('img')?.state === 'FAILED', 'failed');
      expect(updates('img').some((u) => u.healthy !== undefined)).toBe(false);
    });
    return;
  }

  it('health and general COMMAND checks run inside the container: its own /tmp, its cgroup; unhealthy and KILLED once the file goes', async () => {
    // /tmp/alive exists only in the container's root filesystem (the task's writable layer), never on the host.
    const healthCheck: HealthCheck = {
      probe: { type: 'COMMAND', command: { shell: 'cat /proc/self/cgroup > check-cgroup; test -f /tmp/alive' } },
      ...fast,
      consecutiveFailures: 2,
    };
    const check: Check = { probe: { type: 'COMMAND', command: { shell: 'exit $(cat code)' } }, ...fast };
    const shell =
      'cat /proc/self/cgroup > task-cgroup; echo 0 > code; touch /tmp/alive; ' +
      'while [ ! -e stop ]; do sleep 0.1; done; rm /tmp/alive; ' +
      forever;
    launch('img', shell, { healthCheck, check });
    await until(() => cp.last('img')?.healthy === true, 'healthy');
    expect(cp.last('img')).toMatchObject({ state: 'RUNNING', healthy: true });
    expect(fs.existsSync('/tmp/alive')).toBe(false);
    expect(read('img', 'check-cgroup')).toBe(read('img', 'task-cgroup'));
    await until(() => updates('img').some((u) => u.checkStatus?.exitCode === 0), 'exit code 0 reported');
    fs.writeFileSync(path.join(sandbox('img'), 'code'), '5\n');
    await until(() => updates('img').some((u) => u.checkStatus?.exitCode === 5), 'exit code 5 reported');
    fs.writeFileSync(path.join(sandbox('img'), 'stop'), '');
    await until(() => cp.last('img')?.state === 'KILLED', 'killed by its health check');
    expect(cp.last('img')).toMatchObject({ state: 'KILLED', healthy: false, reason: HEALTH });
    expect(cp.last('img')?.message).toMatch(/^the health check failed 2 times in a row \(last: the command exited with status 1\)/);
    expect(
      updates('img')
        .filter((u) => u.reason === CHECK)
        .map((u) => u.checkStatus),
    ).toEqual([
      { type: 'COMMAND', exitCode: 0 },
      { type: 'COMMAND', exitCode: 5 },
    ]);
  });

  it('a check command past its timeout is killed inside the container, with what it started; the task runs on', async () => {
    const check: Check = {
      probe: { type: 'COMMAND', command: { shell: 'echo >> probes; sleep 987 & exec sleep 986' } },
      delaySeconds: 0,
      intervalSeconds: 0.2,
      timeoutSeconds: 0.5,
    };
    launch('slow', forever, { check });
    const probes = () => (fs.existsSync(path.join(sandbox('slow'), 'probes')) ? read('slow', 'probes').length : 0);
    await until(() => probes() >= 4, 'four probes timed out');
    // None of a timed-out probe's processes outlives it: at most the one under way runs.
    expect(processes(['sleep', '986']).length).toBeLessThanOrEqual(1);
    expect(processes(['sleep', '987']).length).toBeLessThanOrEqual(1);
    // A timed-out probe reports no exit code: nothing changed since RUNNING.
    expect(updates('slow').filter((u) => u.reason === CHECK)).toEqual([]);
    agent.tasks.kill('fw', 'slow', 0);
    await until(() => cp.last('slow')?.state === 'KILLED', 'killed');
    await until(() => processes(['sleep', '986']).length + processes(['sleep', '987']).length === 0, 'nothing left');
    expect(cp.last('slow')).toMatchObject({ state: 'KILLED', checkStatus: { type: 'COMMAND' } });
  });
});
