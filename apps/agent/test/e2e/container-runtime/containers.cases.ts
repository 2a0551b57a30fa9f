/**
 * Image tasks and plain-task isolation with real processes: runc runs each image task in its
 * own PID, mount, IPC and UTS namespaces over the image's root filesystem, with the sandbox at
 * /mnt/mesos/sandbox, inside the task's cgroups (its memory limit, OOM reason and kill as for
 * plain tasks), and recovered after an agent restart; volumes are checked against the agent's
 * allow-list before anything starts; plain tasks get a PID namespace of their own. The image is
 * a busybox root filesystem made here (test/support/busybox-image.ts). Needs root and runc (the
 * CI has both); elsewhere it checks that images are off with a reason.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchTask } from '@arbiter/contracts';
import { Agent, type AgentOptions } from '../../../src/agent';
import { systemTool } from '../../../src/containerizer/tools';
import { BusyboxProvisioner, OS_RELEASE_MARKER } from '../../support/busybox-image';
import { FakeControlPlane, launchOf } from '../../support/fake-control-plane';
import { stopAgents, testAgent } from '../../support/test-agents';
import { until as untilWithin } from '@arbiter/test-support';

const until = (check: () => boolean, what = 'the agent condition') => untilWithin(check, 20_000, what);
const canRun = process.getuid?.() === 0 && systemTool('runc') !== undefined;
const ENDED = ['FINISHED', 'FAILED', 'KILLED'];

describe('containers', () => {
  let dir: string;
  let cp: FakeControlPlane;
  let provisioner: BusyboxProvisioner;
  const agents: Agent[] = [];
  const agentOn = (extra: Partial<AgentOptions> = {}) => {
    const agent = testAgent(cp, path.join(dir, 'work'), {
      resources: [{ name: 'cpus', value: 4 }],
      ...extra,
      tasks: { provisioner, allowedHostPaths: [path.join(dir, 'allowed')], ...extra.tasks },
    });
    agents.push(agent);
    agent.start();
    return agent;
  };
  const ended = (taskId: string) => cp.states(taskId).some((s) => ENDED.includes(s));
  /** Images are provisioned only once the function returned is called. */
  const holdProvisioning = (): (() => void) => {
    let ready: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (ready = resolve));
    const provision = provisioner.provision.bind(provisioner);
    provisioner.provision = async (reference) => {
      await gate;
      return provision(reference);
    };
    return ready;
  };
  const launch = (taskId: string, shell: string, task: Partial<LaunchTask['task']> = {}) => {
    const msg = launchOf(taskId, shell);
    cp.launch({ ...msg, task: { ...msg.task, ...task } });
  };
  const image = (name = 'busybox:test') => ({ container: { type: 'MESOS' as const, image: { name } } });
  const stdout = (agent: Agent, taskId: string) => fs.readFileSync(path.join(agent.tasks.sandboxOf('fw', taskId), 'stdout'), 'utf8');
  const bundles = () => fs.readdirSync(path.join(dir, 'work', 'containers')).filter((n) => !n.startsWith('.'));
  const overlays = () =>
    fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .filter((l) => l.includes(dir) && l.includes('overlay'));

  beforeEach(async () => {
    // Outside /tmp: a plain task's /tmp is its own.
    dir = fs.mkdtempSync('/var/tmp/arbiter-containers-');
    fs.chmodSync(dir, 0o711);
    fs.mkdirSync(path.join(dir, 'allowed'));
    fs.writeFileSync(path.join(dir, 'allowed', 'data.txt'), 'host data\n');
    fs.chmodSync(path.join(dir, 'allowed', 'data.txt'), 0o644);
    fs.mkdirSync(path.join(dir, 'denied'));
    provisioner = new BusyboxProvisioner(path.join(dir, 'image'));
    cp = await FakeControlPlane.start();
  });
  afterEach(async () => {
    await stopAgents(agents);
    await cp.close();
    await until(() => overlays().length === 0, 'every overlay unmounted');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  if (!canRun) {
    it('turns images off with a reason where runc cannot run (not root, or not installed)', async () => {
      agentOn();
      await until(() => cp.registered);
      expect(cp.registrations[0].capabilities?.imagesProblem).toBeTruthy();
      launch('img', 'true', image());
      await until(() => ended('img'));
      expect(cp.last('img')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    });
    return;
  }

  it("runs an image task in namespaces of its own: it sees only its processes, the image's files and its sandbox; then leaves nothing", async () => {
    const agent = agentOn();
    await until(() => cp.registered);
    const caps = cp.registrations[0].capabilities;
    expect([caps?.containerizers, caps?.runtime?.name, caps?.tools?.runc]).toEqual([['mesos'], 'runc', caps?.runtime?.version]);
    expect(caps?.isolators).toEqual(expect.arrayContaining(['cgroups/mem', 'filesystem/linux', 'namespaces/pid', 'docker/runtime']));
    expect(cp.registrations[0].capabilities?.imagesProblem).toBeUndefined();
    const shell =
      'ps -o pid,comm; cat /etc/os-release; echo "sandbox=$MESOS_SANDBOX pwd=$(pwd) var=$IMAGE_VAR uid=$(id -u)"; echo hi > /mnt/mesos/sandbox/out';
    launch('img', shell, image());
    await until(() => ended('img'));
    expect(cp.states('img')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    expect(cp.last('img')?.container?.image?.reference).toBe('localhost/busybox:test');
    expect(cp.last('img')?.container?.image?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const out = stdout(agent, 'img');
    // PID 1 is the task's shell, and ps itself: nothing of the host.
    const pids = out
      .split('\n')
      .slice(1)
      .filter((l) => /^\s*\d+/.test(l))
      .map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(pids[0]).toBe(1);
    expect(pids.length).toBeLessThanOrEqual(2);
    expect(out).toContain(OS_RELEASE_MARKER);
    const uid = fs.statSync(agent.tasks.sandboxOf('fw', 'img')).uid;
    expect(out).toContain(`sandbox=/mnt/mesos/sandbox pwd=/mnt/mesos/sandbox var=from-image uid=${uid}`);
    expect(fs.readFileSync(path.join(agent.tasks.sandboxOf('fw', 'img'), 'out'), 'utf8')).toBe('hi\n');
    await until(() => bundles().length === 0 && overlays().length === 0 && provisioner.released === 1, 'the container removed');
  });

  it("fetches an image task's URIs while its image is provisioned; a failed fetch ends its task before the image is ready", async () => {
    const ready = holdProvisioning();
    const agent = agentOn();
    await until(() => cp.registered);
    launch('fetched', 'cat /mnt/mesos/sandbox/data.txt', {
      ...image(),
      uris: [{ value: `file://${path.join(dir, 'allowed', 'data.txt')}` }],
    });
    launch('unfetched', 'true', { ...image(), uris: [{ value: `file://${path.join(dir, 'allowed', 'missing.txt')}` }] });
    await until(() => cp.states('fetched').includes('STARTING') && ended('unfetched'), 'both fetches done');
    expect(provisioner.provisioned).toBe(0);
    expect(cp.last('fetched')?.message).toMatch(/^fetched 1 URI \(10 bytes, 0 from the cache\)/);
    expect(cp.last('unfetched')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    expect(cp.last('unfetched')?.message).toContain('missing.txt');
    ready();
    await until(() => ended('fetched'));
    expect(cp.states('fetched')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    expect(stdout(agent, 'fetched')).toBe('host data\n');
    // The failed task's image, provisioned after its end, went unused.
    expect(cp.states('unfetched')).toEqual(['FAILED']);
    await until(() => bundles().length === 0 && overlays().length === 0 && provisioner.released === 2, 'both images released');
  });

  it("fetches an image executor's URIs while its image is provisioned; a failed fetch ends it and its task before the image is ready", async () => {
    const ready = holdProvisioning();
    const agent = agentOn();
    await until(() => cp.registered);
    const executor = (executorId: string, file: string): ExecutorSpec => ({
      executorId,
      type: 'CUSTOM',
      // It never subscribes: what it shows is that it ran, in its image, after its fetch.
      command: { shell: 'cp data.txt copied; exec sleep 100' },
      resources: [{ name: 'cpus', value: 0.1 }],
      uris: [{ value: `file://${path.join(dir, 'allowed', file)}` }],
      ...image(),
    });
    const task = (taskId: string, ex: ExecutorSpec) =>
      cp.launch({ frameworkId: 'fw', task: { taskId, name: taskId, executor: ex, resources: [{ name: 'cpus', value: 0.1 }] } });
    task('on-fetched', executor('fetched', 'data.txt'));
    task('on-unfetched', executor('unfetched', 'missing.txt'));
    const sandbox = agent.tasks.containerizer.sandboxes.executorPathOf('fw', 'fetched');
    await until(() => fs.existsSync(path.join(sandbox, 'data.txt')) && ended('on-unfetched'), 'both fetches done');
    expect(provisioner.provisioned).toBe(0);
    expect(cp.last('on-unfetched')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    expect(cp.last('on-unfetched')?.message).toContain('missing.txt');
    expect(fs.existsSync(path.join(sandbox, 'copied'))).toBe(false);
    ready();
    await until(
      () => fs.existsSync(path.join(sandbox, 'copied')) && fs.readFileSync(path.join(sandbox, 'copied'), 'utf8') === 'host data\n',
      'the executor ran',
    );
    // The failed executor's image, provisioned after its end, went unused.
    await until(() => provisioner.provisioned === 2 && provisioner.released === 1, "the failed executor's image released");
  });

  it('OOM-kills a container over its memory limit with the memory reason, fails one over its disk, and kills one on request', async () => {
    const agent = agentOn();
    await until(() => cp.registered);
    const resources = [
      { name: 'cpus', value: 0.5 },
      { name: 'mem', value: 32 },
    ];
    // /dev/shm is memory: its pages count against the task's cgroup.
    launch('hog', 'head -c 60000000 /dev/zero > /dev/shm/fill; sleep 30', { ...image(), resources });
    launch('sleeper', 'exec sleep 100', image());
    const disk = [
      { name: 'cpus', value: 0.1 },
      { name: 'disk', value: 5 },
    ];
    launch('filler', 'head -c 12000000 /dev/zero > /mnt/mesos/sandbox/fill && touch /mnt/mesos/sandbox/done; exec sleep 100', {
      ...image(),
      resources: disk,
    });
    await until(() => ended('hog'));
    expect(cp.last('hog')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LIMITATION_MEMORY' });
    await until(() => fs.existsSync(path.join(agent.tasks.sandboxOf('fw', 'filler'), 'done')), 'the filler wrote');
    await agent.tasks.limits.checkDisk();
    await until(() => ended('filler'));
    expect(cp.last('filler')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LIMITATION_DISK' });
    await until(() => cp.states('sleeper').includes('RUNNING'));
    expect((await cp.call('kill', { frameworkId: 'fw', taskId: 'sleeper', gracePeriodSeconds: 0 })).ok).toBe(true);
    await until(() => ended('sleeper'));
    expect(cp.last('sleeper')?.state).toBe('KILLED');
    await until(() => bundles().length === 0 && overlays().length === 0, 'the containers removed');
  });

  it('mounts volumes under the allow-list (host path read-only, sandbox path) and refuses one outside it before anything starts', async () => {
    const agent = agentOn();
    await until(() => cp.registered);
    const volumes = [
      { containerPath: '/host', mode: 'RO' as const, source: { type: 'HOST_PATH' as const, path: path.join(dir, 'allowed') } },
      {
        containerPath: '/shared',
        mode: 'RW' as const,
        source: { type: 'SANDBOX_PATH' as const, sandboxType: 'SELF' as const, path: 'shared' },
      },
    ];
    // DOCKER-type containers run through the same runtime.
    launch('vols', 'cat /host/data.txt; echo x > /host/new || echo read-only; echo kept > /shared/file', {
      container: { type: 'DOCKER', image: { name: 'busybox' }, volumes },
    });
    const outside = [
      { containerPath: '/etc-host', mode: 'RO' as const, source: { type: 'HOST_PATH' as const, path: path.join(dir, 'denied') } },
    ];
    launch('outside', 'true', { container: { type: 'MESOS', image: { name: 'busybox' }, volumes: outside } });
    // A plain task (no image) gets its volumes in its mount namespace, relative to its sandbox.
    launch('plain-vol', 'cat host/data.txt', {
      container: {
        type: 'MESOS',
        volumes: [{ containerPath: 'host', mode: 'RO', source: { type: 'HOST_PATH', path: path.join(dir, 'allowed') } }],
      },
    });
    await until(() => ['vols', 'outside', 'plain-vol'].every(ended));
    expect(cp.last('vols')?.state).toBe('FINISHED');
    expect(stdout(agent, 'vols')).toBe('host data\nread-only\n');
    expect(fs.readFileSync(path.join(agent.tasks.sandboxOf('fw', 'vols'), 'shared', 'file'), 'utf8')).toBe('kept\n');
    expect(fs.existsSync(path.join(dir, 'allowed', 'new'))).toBe(false);
    expect(cp.states('outside')).toEqual(['STARTING', 'FAILED']);
    expect(cp.last('outside')?.reason).toBe('REASON_CONTAINER_LAUNCH_FAILED');
    expect(cp.last('outside')?.message).toBe(
      `host path ${path.join(dir, 'denied')} is not allowed: it is outside the agent's allowed host paths (${path.join(dir, 'allowed')})`,
    );
    expect(cp.last('plain-vol')?.state).toBe('FINISHED');
    expect(stdout(agent, 'plain-vol')).toBe('host data\n');
  });

  it('mounts a persistent volume at its container path in an image (absolute) and read-only where asked; refuses one the agent lacks', async () => {
    const agent = agentOn();
    await until(() => cp.registered);
    const made = (msg: object) => new Promise((resolve) => agent.tasks.containerizer.volumes.create(msg, (r) => resolve(r)));
    await made({ role: 'db', id: 'pv-rw', containerPath: '/var/lib/db', mode: 'RW' });
    await made({ role: 'db', id: 'pv-ro', containerPath: 'config', mode: 'RO' });
    fs.writeFileSync(path.join(agent.tasks.containerizer.volumes.pathOf('db', 'pv-ro'), 'setting'), 'on\n');
    const volume = (id: string) => ({ name: 'disk', value: 10, reservation: 'db', volume: id });
    launch(
      'pv',
      'echo stored > /var/lib/db/file; cat /mnt/mesos/sandbox/config/setting; echo x > /mnt/mesos/sandbox/config/new || echo read-only',
      {
        ...image(),
        resources: [{ name: 'cpus', value: 0.1 }, volume('pv-rw'), volume('pv-ro')],
      },
    );
    launch('pv-missing', 'true', { ...image(), resources: [{ name: 'cpus', value: 0.1 }, volume('nowhere')] });
    await until(() => ['pv', 'pv-missing'].every(ended));
    expect(cp.last('pv')?.state).toBe('FINISHED');
    expect(stdout(agent, 'pv')).toBe('on\nread-only\n');
    expect(fs.readFileSync(path.join(agent.tasks.containerizer.volumes.pathOf('db', 'pv-rw'), 'file'), 'utf8')).toBe('stored\n');
    expect(cp.last('pv-missing')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    expect(cp.last('pv-missing')?.message).toMatch(/persistent volume nowhere of role 'db' is not on this agent/);
  });

  it("runs plain tasks in a PID namespace of their own, Spark's container without an image as a plain task, and fails unknown images", async () => {
    const agent = agentOn({ tasks: { isolation: ['filesystem/linux', 'namespaces/pid'] } });
    await until(() => cp.registered);
    expect(cp.registrations[0].capabilities?.isolators).toEqual(expect.arrayContaining(['filesystem/linux', 'namespaces/pid']));
    launch('plain-ps', 'ls /proc | grep -c "^[0-9]"');
    launch('plain-pid', 'echo $$');
    launch('spark', 'echo spark-ran', { container: { type: 'MESOS' } });
    launch('unknown', 'true', image('missing/app:1'));
    // The image is there, the program is not: runc cannot start the container.
    cp.launch({ frameworkId: 'fw', task: { taskId: 'no-program', name: 't', command: { value: '/no/such' }, resources: [], ...image() } });
    await until(() => ['plain-ps', 'spark', 'unknown', 'no-program'].every(ended));
    expect(cp.last('no-program')?.reason).toBe('REASON_CONTAINER_LAUNCH_FAILED');
    expect(cp.last('no-program')?.message).toMatch(/^could not start the container: .*\/no\/such/);
    // RUNNING only once runc has started the container's process: this one never ran.
    expect(cp.states('no-program')).toEqual(['STARTING', 'FAILED']);
    expect(cp.last('plain-ps')?.state).toBe('FINISHED');
    // Its shell, the subshell and ls (grep may have ended): a handful, not the host's hundreds.
    expect(Number(stdout(agent, 'plain-ps'))).toBeLessThanOrEqual(5);
    // Its wrapper is the namespace's first process.
    await until(() => ended('plain-pid'));
    expect(stdout(agent, 'plain-pid')).toBe('1\n');
    expect(cp.last('spark')?.state).toBe('FINISHED');
    expect(stdout(agent, 'spark')).toBe('spark-ran\n');
    expect(cp.last('unknown')).toMatchObject({
      state: 'FAILED',
      reason: 'REASON_CONTAINER_LAUNCH_FAILED',
      message: 'image missing/app:1 was not found in the registry',
    });
    await until(() => bundles().length === 0, 'the containers removed');
  });

  it('recovers a running container after an agent restart and reports how it ended', async () => {
    const first = agentOn();
    await until(() => cp.registered);
    launch('lasting', 'while [ ! -e /mnt/mesos/sandbox/go ]; do sleep 0.1; done; exit 3', image());
    await until(() => cp.states('lasting').includes('RUNNING'));
    const sandbox = first.tasks.sandboxOf('fw', 'lasting');
    await first.stop();
    agents.splice(agents.indexOf(first), 1);
    expect(bundles()).toHaveLength(1);
    agentOn();
    await until(() => cp.registrations.length === 2);
    expect(cp.registrations[1].tasks).toEqual([expect.objectContaining({ taskId: 'lasting', state: 'RUNNING' })]);
    fs.writeFileSync(path.join(sandbox, 'go'), '');
    await until(() => ended('lasting'));
    expect(cp.last('lasting')).toMatchObject({ state: 'FAILED', reason: 'REASON_COMMAND_EXITED', message: 'exited with status 3' });
    expect(cp.last('lasting')?.container?.image?.reference).toBe('localhost/busybox:test');
    await until(() => bundles().length === 0 && overlays().length === 0, 'the container removed');
  });

  it("copies the image's root filesystem where overlay is not used, and never writes into the image's", async () => {
    const agent = agentOn({ tasks: { rootfs: 'copy' } });
    await until(() => cp.registered);
    launch('copied', 'echo changed > /tmp/written && cat /tmp/written /etc/os-release', image());
    await until(() => ended('copied'));
    expect(cp.last('copied')?.state).toBe('FINISHED');
    expect(stdout(agent, 'copied')).toContain(`changed\nNAME="Arbiter test image"\n${OS_RELEASE_MARKER}`);
    expect(overlays()).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'image', 'rootfs', 'tmp', 'written'))).toBe(false);
    await until(() => bundles().length === 0, 'the copy removed');
  });

  it("runs an executor in its image's container, and removes it when the executor ends", async () => {
    const agent = agentOn({ executors: { registrationTimeoutMs: 2000 } });
    await until(() => cp.registered);
    // A program that never subscribes: it runs in the image, then is killed for not subscribing.
    const executor = {
      executorId: 'img-ex',
      type: 'CUSTOM' as const,
      command: {
        shell: 'cat /etc/os-release > /mnt/mesos/sandbox/seen; echo "$ARBITER_SANDBOX" >> /mnt/mesos/sandbox/seen; exec sleep 100',
      },
      resources: [{ name: 'cpus', value: 0.1 }],
      container: { type: 'MESOS' as const, image: { name: 'busybox' } },
    };
    cp.launch({ frameworkId: 'fw', task: { taskId: 'via-ex', name: 'via-ex', executor, resources: [{ name: 'cpus', value: 0.1 }] } });
    const seen = path.join(agent.tasks.containerizer.sandboxes.executorPathOf('fw', 'img-ex'), 'seen');
    await until(() => fs.existsSync(seen) && fs.readFileSync(seen, 'utf8').includes('/mnt/mesos/sandbox'), 'the executor ran');
    expect(fs.readFileSync(seen, 'utf8')).toContain(OS_RELEASE_MARKER);
    expect(bundles()).toHaveLength(1);
    await until(() => ended('via-ex'));
    expect(cp.last('via-ex')?.reason).toBe('REASON_EXECUTOR_REGISTRATION_TIMEOUT');
    await until(() => bundles().length === 0 && overlays().length === 0 && provisioner.released === 1, 'the container removed');
  });

  it('fails image tasks on an agent with no provisioner, with a reason', async () => {
    agentOn({ tasks: { provisioner: undefined } });
    await until(() => cp.registered);
    expect(cp.registrations[0].capabilities?.imagesProblem).toBe('this agent has no image provisioner');
    launch('img', 'true', image());
    await until(() => ended('img'));
    expect(cp.last('img')).toMatchObject({
      state: 'FAILED',
      reason: 'REASON_CONTAINER_LAUNCH_FAILED',
      message: 'this agent cannot run container images: it has no image provisioner',
    });
  });
});
