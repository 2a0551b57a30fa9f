/**
 * Task groups whose tasks name images (real processes, runc): the default executor asks the
 * agent's API for a nested container per task, on its own credential; each runs over its own
 * image with a PID and mount namespace of its own (or its executor's PID namespace, when it
 * shares it), inside the executor's cgroups, with the group's shared sandbox path mounted. One
 * failing kills the other; an executor's credential acts on its own nested containers only.
 * Images are busybox root filesystems made here, one per reference (test/support/busybox-image.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchGroup, TaskSpec } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import { systemTool } from '../../../src/containerizer/tools';
import { BusyboxProvisioner } from '../../support/busybox-image';
import { executorBed } from '../../support/executor-bed';

const until = (check: () => boolean, what = 'the group condition') => untilWithin(check, 30_000, what);
const canRun = process.getuid?.() === 0 && systemTool('runc') !== undefined;
const ENDED = ['FINISHED', 'FAILED', 'KILLED'];

const executor = (executorId: string, mem = 64): ExecutorSpec => ({
  executorId,
  type: 'DEFAULT',
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: mem },
  ],
  shutdownGracePeriodSeconds: 3,
});
/** A task in its own image, with the group's shared directory (the executor's sandbox's `shared`) at `shared`. */
const inImage = (taskId: string, image: string, shell: string, extra: { mem?: number; sharePid?: boolean } = {}): TaskSpec => ({
  taskId,
  name: taskId,
  command: { shell },
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: extra.mem ?? 32 },
  ],
  container: {
    type: 'MESOS',
    image: { name: image },
    volumes: [{ containerPath: 'shared', mode: 'RW', source: { type: 'SANDBOX_PATH', sandboxType: 'PARENT', path: 'shared' } }],
    ...(extra.sharePid ? { linux: { sharePidNamespace: true } } : {}),
  },
});
const group = (executorId: string, tasks: TaskSpec[], mem?: number): LaunchGroup => ({
  frameworkId: 'fw',
  executor: executor(executorId, mem),
  tasks,
});

describe('task groups in containers (nested containers under the default executor)', () => {
  const bed = executorBed('arbiter-nested-', { executors: { registrationTimeoutMs: 30_000 } });
  const agentOn = () => bed.agentOn({ tasks: { provisioner: new BusyboxProvisioner(path.join(bed.dir, 'images'), undefined, true) } });
  const bundles = () => fs.readdirSync(path.join(bed.dir, 'work', 'containers')).filter((n) => !n.startsWith('.'));
  const ended = (...ids: string[]) => ids.every((id) => ENDED.includes(bed.cp.last(id)?.state ?? ''));

  if (!canRun) {
    it('fails a group task naming an image where runc cannot run', async () => {
      await agentOn();
      expect(await bed.cp.call('launchGroup', group('ex', [inImage('a', 'alpha:1', 'true')]))).toEqual({ ok: true });
      await until(() => ended('a'));
      expect(bed.cp.last('a')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    });
    return;
  }

  it("runs each task in its own image and PID namespace, in the executor's cgroup, sharing the group's volume", async () => {
    const agent = await agentOn();
    // Each writes to the shared volume, then waits (at most 10 s) for the other's file.
    const shell = (me: string, other: string) =>
      `cat /etc/os-release; ps -o pid,comm; cat /proc/self/cgroup; echo ${me} > shared/${me}; i=0; while [ ! -e shared/${other} ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; cat shared/${other}`;
    const tasks = [inImage('a', 'alpha:1', shell('a', 'b')), inImage('b', 'beta:1', shell('b', 'a'))];
    expect(await bed.cp.call('launchGroup', group('ex', tasks))).toEqual({ ok: true });
    const run = agent.executors.find('fw', 'ex');
    await until(() => ended('a', 'b'));
    for (const id of ['a', 'b']) expect(bed.cp.states(id)).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    const out = (id: string) => fs.readFileSync(path.join(run?.container.sandbox ?? '', 'tasks', id, 'stdout'), 'utf8');
    const pids = (text: string) => text.split('\n').filter((l) => /^\s*\d+\s/.test(l)).length;
    // Its own image's os-release, not the other's; only its own processes (its shell and ps); the other's word through the volume.
    expect(out('a')).toContain('ID=image-alpha');
    expect(out('a')).not.toContain('image-beta');
    expect(out('b')).toContain('ID=image-beta');
    expect(pids(out('a'))).toBeLessThanOrEqual(2);
    // In the executor's memory cgroup (runc's own below it).
    const memory = path.basename(run?.container.cgroup?.dirs.memory ?? 'none');
    expect(out('b')).toMatch(new RegExp(`memory:/.*${memory}/arbiter-`));
    expect(out('a').trim().split('\n').at(-1)).toBe('b');
    expect(out('b').trim().split('\n').at(-1)).toBe('a');
    await until(() => bed.cp.executorExits.length === 1, 'the executor exit reported');
    expect(bed.cp.executorExits[0]).toMatchObject({ executorId: 'ex', exitCode: 0 });
    // Nothing is left of the containers.
    await until(() => bundles().length === 0, 'the containers removed');
  }, 60_000);

  it("shares the executor's PID namespace when the task asks (share_pid_namespace)", async () => {
    const agent = await agentOn();
    expect(await bed.cp.call('launchGroup', group('ex', [inImage('s', 'alpha:1', 'ps -o pid,comm', { sharePid: true })]))).toEqual({
      ok: true,
    });
    const sandbox = agent.executors.find('fw', 'ex')?.container.sandbox ?? '';
    await until(() => ended('s'));
    const stderr = fs.readFileSync(path.join(sandbox, 'tasks', 's', 'stderr'), 'utf8');
    expect(`${bed.cp.last('s')?.state} (${bed.cp.last('s')?.message}) stderr: ${stderr}`).toMatch(/^FINISHED /);
    // The executor (node) is there, beside the task's own.
    expect(fs.readFileSync(path.join(sandbox, 'tasks', 's', 'stdout'), 'utf8')).toMatch(/\d+\s+node/);
  }, 60_000);

  it('one task failing kills the other (TASK_KILLED) and the group ends', async () => {
    const agent = await agentOn();
    const tasks = [inImage('bad', 'alpha:1', 'sleep 1; exit 3'), inImage('sleeper', 'beta:1', 'exec sleep 60')];
    expect(await bed.cp.call('launchGroup', group('ex', tasks))).toEqual({ ok: true });
    await until(() => ended('bad', 'sleeper'));
    expect(bed.cp.last('bad')).toMatchObject({ state: 'FAILED' });
    expect(bed.cp.last('bad')?.message).toContain('status 3');
    expect(bed.cp.states('sleeper')).toEqual(['STARTING', 'RUNNING', 'KILLING', 'KILLED']);
    await until(() => bed.cp.executorExits.length === 1, 'the executor exit reported');
    expect(agent.executors.runs.size).toBe(0);
  }, 60_000);

  it("fails the group with the memory reason when a nested container goes over the group's memory", async () => {
    await agentOn();
    // 64 + 16 + 16 MiB for the executor (Node.js) and both; /dev/shm's pages (each container's own) count against it.
    const tasks = [
      inImage('hog', 'alpha:1', 'sleep 1; head -c 50000000 /dev/zero > /dev/shm/fill; exec sleep 30', { mem: 16 }),
      inImage('hog2', 'beta:1', 'head -c 50000000 /dev/zero > /dev/shm/fill; exec sleep 30', { mem: 16 }),
    ];
    expect(await bed.cp.call('launchGroup', group('ex', tasks))).toEqual({ ok: true });
    await until(() => ended('hog', 'hog2'));
    // Whichever process the kernel killed, the group's tasks end with the memory reason.
    for (const id of ['hog', 'hog2'])
      expect(bed.cp.last(id)).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LIMITATION_MEMORY' });
    // The group's containers are taken down (root filesystems unmounted, bundles removed).
    await until(() => bundles().length === 0, 'the containers removed');
  }, 60_000);

  it('a kill of one task kills the group', async () => {
    await agentOn();
    const tasks = [inImage('k1', 'alpha:1', 'exec sleep 60'), inImage('k2', 'beta:1', 'exec sleep 60')];
    expect(await bed.cp.call('launchGroup', group('ex', tasks))).toEqual({ ok: true });
    await until(() => bed.cp.last('k1')?.state === 'RUNNING' && bed.cp.last('k2')?.state === 'RUNNING');
    expect(await bed.cp.call('kill', { frameworkId: 'fw', taskId: 'k1' })).toEqual({ ok: true });
    await until(() => ended('k1', 'k2'));
    expect([bed.cp.last('k1')?.state, bed.cp.last('k2')?.state]).toEqual(['KILLED', 'KILLED']);
    await until(() => bed.cp.executorExits.length === 1, 'the executor exit reported');
    await until(() => bundles().length === 0, 'the containers removed');
  }, 60_000);

  it('keeps nested containers across an agent restart: the restarted agent answers their waits', async () => {
    const first = await agentOn();
    // Each ends once the group's shared directory has the word.
    const shell = 'while [ ! -e shared/go ]; do sleep 0.1; done; echo done';
    expect(await bed.cp.call('launchGroup', group('ex', [inImage('r1', 'alpha:1', shell), inImage('r2', 'beta:1', shell)]))).toEqual({
      ok: true,
    });
    await until(() => bed.cp.last('r1')?.state === 'RUNNING' && bed.cp.last('r2')?.state === 'RUNNING');
    const sandbox = first.executors.find('fw', 'ex')?.container.sandbox ?? '';
    await first.stop();
    bed.forget(first);
    const second = await bed.agentOn({
      tasks: { provisioner: new BusyboxProvisioner(path.join(bed.dir, 'images'), undefined, true) },
      executors: { registrationTimeoutMs: 60_000, recoveryTimeoutMs: 60_000 },
    });
    expect(second.executors.liveContainers()).toHaveLength(3);
    fs.writeFileSync(path.join(sandbox, 'shared', 'go'), '');
    await until(() => ended('r1', 'r2'));
    for (const id of ['r1', 'r2'])
      expect(`${id} ${bed.cp.last(id)?.state} (${bed.cp.last(id)?.reason}: ${bed.cp.last(id)?.message})`).toBe(
        `${id} FINISHED (undefined: the command exited with status 0)`,
      );
    await until(() => bed.cp.executorExits.length === 1, 'the executor exit reported');
    await until(() => bundles().length === 0, 'the containers removed');
  }, 90_000);

  it("refuses an executor's credential on another executor's containers, and calls without one", async () => {
    const agent = await agentOn();
    expect(await bed.cp.call('launchGroup', group('ex1', [inImage('one', 'alpha:1', 'exec sleep 60')]))).toEqual({ ok: true });
    expect(await bed.cp.call('launchGroup', group('ex2', [inImage('two', 'beta:1', 'exec sleep 60')]))).toEqual({ ok: true });
    await until(() => bed.cp.last('one')?.state === 'RUNNING' && bed.cp.last('two')?.state === 'RUNNING');
    const [ex1, ex2] = [agent.executors.find('fw', 'ex1'), agent.executors.find('fw', 'ex2')];
    const endpoint = agent.executorApi.endpoint;
    const call = async (token: string | undefined, type: string, parent: string, more: Record<string, unknown> = {}) => {
      const res = await fetch(`http://${endpoint?.host}:${endpoint?.port}/api/v1`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ type, [type.toLowerCase()]: { container_id: { value: 'x', parent: { value: parent } }, ...more } }),
      });
      return { status: res.status, text: await res.text() };
    };
    const image = { type: 'MESOS', mesos: { image: { type: 'DOCKER', docker: { name: 'alpha:1' } } } };
    // ex2's credential under ex1's container: refused, whatever the call.
    const other = ex1?.containerId ?? '';
    expect(await call(ex2?.token, 'LAUNCH_NESTED_CONTAINER', other, { container: image, command: { value: 'true' } })).toMatchObject({
      status: 403,
    });
    expect(await call(ex2?.token, 'KILL_NESTED_CONTAINER', other, { signal: 9 })).toMatchObject({ status: 403 });
    expect(await call(ex2?.token, 'WAIT_NESTED_CONTAINER', other)).toMatchObject({ status: 403 });
    expect(await call(undefined, 'KILL_NESTED_CONTAINER', other)).toMatchObject({ status: 401 });
    // Its own container: an unknown one is 404; a malformed call 400.
    expect(await call(ex2?.token, 'KILL_NESTED_CONTAINER', ex2?.containerId ?? '')).toMatchObject({ status: 404 });
    expect(await call(ex2?.token, 'LAUNCH_NESTED_CONTAINER', ex2?.containerId ?? '', { container: { type: 'MESOS' } })).toMatchObject({
      status: 400,
    });
    // Nothing changed: both still run.
    expect([bed.cp.last('one')?.state, bed.cp.last('two')?.state]).toEqual(['RUNNING', 'RUNNING']);
    await agent.executors.killAll();
    await until(() => bundles().length === 0, 'the containers removed');
  }, 60_000);
});
