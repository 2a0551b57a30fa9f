/**
 * Task groups with real processes (LAUNCH_GROUP): the agent starts its default executor
 * (bin/default-executor.js) through the containerizer, hands it each group once it subscribes,
 * and reports the group's tasks through its journal; a group lives and dies together.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchGroup, Reply, TaskSpec } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { FakeControlPlane } from '../../support/fake-control-plane';
import { executorBed } from '../../support/executor-bed';

const until = (check: () => boolean, what = 'the group condition') => untilWithin(check, 30_000, what);

const executor = (executorId: string, extra: Partial<ExecutorSpec> = {}): ExecutorSpec => ({
  executorId,
  type: 'DEFAULT',
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: 64 },
  ],
  shutdownGracePeriodSeconds: 3,
  ...extra,
});
const task = (taskId: string, shell: string): TaskSpec => ({
  taskId,
  name: taskId,
  command: { shell },
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: 32 },
  ],
});
const group = (executorId: string, tasks: TaskSpec[]): LaunchGroup => ({ frameworkId: 'fw', executor: executor(executorId), tasks });

describe('task groups under the default executor (real processes)', () => {
  const bed = executorBed('arbiter-groups-', { executors: { registrationTimeoutMs: 30_000 } });
  let cp: FakeControlPlane;
  beforeEach(() => (cp = bed.cp));
  const agentOn = () => bed.agentOn();
  const ended = (...ids: string[]) => ids.every((id) => ['FINISHED', 'FAILED', 'KILLED'].includes(cp.last(id)?.state ?? ''));

  it('runs a group of three in one shared sandbox to TASK_FINISHED; the executor then exits and is reported', async () => {
    const agent = await agentOn();
    // Each task writes its id and whether it holds the executor's credential (it must not: it cannot speak as the executor).
    const tasks = ['g1', 'g2', 'g3'].map((id) =>
      task(id, 'echo "$MESOS_TASK_ID:${MESOS_EXECUTOR_AUTHENTICATION_TOKEN:-none}" > "$MESOS_SANDBOX/out"'),
    );
    expect(await cp.call('launchGroup', group('ex', tasks))).toEqual({ ok: true });
    const run = agent.executors.find('fw', 'ex');
    expect(run?.spec.type).toBe('DEFAULT');
    const sandbox = run?.container.sandbox ?? '';
    await until(() => ended('g1', 'g2', 'g3'));
    for (const id of ['g1', 'g2', 'g3']) {
      expect(cp.states(id)).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
      expect(cp.last(id)?.source).toBe('SOURCE_EXECUTOR');
      expect(fs.readFileSync(path.join(sandbox, 'tasks', id, 'out'), 'utf8').trim()).toBe(`${id}:none`);
    }
    await until(() => cp.executorExits.length === 1, 'the executor exit reported');
    expect(cp.executorExits[0]).toMatchObject({ frameworkId: 'fw', executorId: 'ex', exitCode: 0 });
    expect(agent.executors.runs.size).toBe(0);
  }, 60_000);

  it('one task failing kills the group: the others TASK_KILLED, the executor exits', async () => {
    const agent = await agentOn();
    const tasks = [task('bad', 'sleep 1; exit 3'), task('s1', 'sleep 60'), task('s2', 'sleep 60')];
    expect(await cp.call('launchGroup', group('ex', tasks))).toEqual({ ok: true });
    await until(() => ended('bad', 's1', 's2'));
    expect(cp.last('bad')).toMatchObject({ state: 'FAILED' });
    expect(cp.last('bad')?.message).toContain('status 3');
    expect(cp.last('s1')?.state).toBe('KILLED');
    expect(cp.last('s2')?.state).toBe('KILLED');
    await until(() => cp.executorExits.length === 1, 'the executor exit reported');
    expect(cp.executorExits[0]).toMatchObject({ executorId: 'ex' });
    expect(agent.executors.runs.size).toBe(0);
  }, 60_000);

  it('a kill of one task kills the whole group; a second group goes to the running executor', async () => {
    const agent = await agentOn();
    expect(await cp.call('launchGroup', group('ex', [task('k1', 'sleep 60'), task('k2', 'sleep 60')]))).toEqual({ ok: true });
    await until(() => cp.last('k1')?.state === 'RUNNING' && cp.last('k2')?.state === 'RUNNING');
    const pid = agent.executors.find('fw', 'ex')?.container.pid;
    expect(await cp.call('launchGroup', group('ex', [task('k3', 'exit 0')]))).toEqual({ ok: true });
    await until(() => cp.last('k3')?.state === 'FINISHED');
    expect(agent.executors.runs.size).toBe(1);
    expect(agent.executors.find('fw', 'ex')?.container.pid).toBe(pid);

    expect(await cp.call('kill', { frameworkId: 'fw', taskId: 'k1' })).toEqual({ ok: true });
    await until(() => ended('k1', 'k2'));
    expect(cp.states('k1')).toEqual(['STARTING', 'RUNNING', 'KILLING', 'KILLED']);
    expect(cp.last('k2')?.state).toBe('KILLED');
    await until(() => cp.executorExits.length === 1, 'the executor exit reported');
    expect(agent.executors.runs.size).toBe(0);
  }, 60_000);

  it('refuses a group that is not for a DEFAULT executor, repeats a task id, or names a running task, changing nothing', async () => {
    const agent = await agentOn();
    const custom = { ...group('c', [task('x', 'true')]), executor: executor('c', { type: 'CUSTOM', command: { shell: 'true' } }) };
    expect(await cp.call('launchGroup', custom)).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE' } });
    expect(await cp.call('launchGroup', group('d', [task('x', 'true'), task('x', 'true')]))).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
    expect(await cp.call('launchGroup', { frameworkId: 'fw', tasks: [] })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
    expect(agent.executors.runs.size).toBe(0);
    expect(await cp.call('launchGroup', group('ex', [task('r', 'sleep 60')]))).toEqual({ ok: true });
    await until(() => cp.last('r')?.state === 'RUNNING');
    expect(await cp.call('launchGroup', group('other', [task('r', 'true')]))).toMatchObject({
      ok: false,
      error: { code: 'DUPLICATE_TASK' },
    });
    expect(agent.executors.runs.size).toBe(1);
    expect(cp.statuses.map((s) => s.taskId)).not.toContain('x');
  }, 60_000);
  it("mounts each task's persistent volumes in its sandbox, holds them while it runs, and fails a group naming a volume the agent lacks", async () => {
    const agent = await agentOn();
    const volumes = agent.tasks.containerizer.volumes;
    const make = (id: string) =>
      new Promise<Reply>((resolve) => volumes.create({ role: 'db', id, containerPath: 'data', mode: 'RW' }, resolve));
    const destroy = (id: string) => new Promise<Reply>((resolve) => volumes.destroy({ role: 'db', id }, resolve));
    for (const id of ['gv1', 'gv2', 'gv3']) expect(await make(id)).toMatchObject({ ok: true });
    const onVolume = (taskId: string, volume: string, shell: string): TaskSpec => {
      const t = task(taskId, shell);
      return { ...t, resources: [...t.resources, { name: 'disk', value: 10, reservation: 'db', volume }] };
    };
    const written = (volume: string) => path.join(volumes.pathOf('db', volume), 'out');
    expect(
      await cp.call(
        'launchGroup',
        group('ex', [
          onVolume('v1', 'gv1', 'echo "$MESOS_TASK_ID" > data/out; exec sleep 60'),
          onVolume('v2', 'gv2', 'echo "$MESOS_TASK_ID" > data/out; exec sleep 60'),
        ]),
      ),
    ).toEqual({ ok: true });
    // The shell makes the file before it writes the line: wait for whole lines.
    const line = (volume: string) => (fs.existsSync(written(volume)) ? fs.readFileSync(written(volume), 'utf8') : '');
    await until(() => line('gv1').endsWith('\n') && line('gv2').endsWith('\n'), 'both tasks wrote in their volumes');
    expect(line('gv1')).toBe('v1\n');
    expect(line('gv2')).toBe('v2\n');
    expect(await destroy('gv1')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });

    // A second group, to the running executor: its task's volume too, released once it ends.
    expect(await cp.call('launchGroup', group('ex', [onVolume('v3', 'gv3', 'echo "$MESOS_TASK_ID" > data/out')]))).toEqual({ ok: true });
    await until(() => cp.last('v3')?.state === 'FINISHED');
    expect(fs.readFileSync(written('gv3'), 'utf8')).toBe('v3\n');
    expect(await destroy('gv3')).toEqual({ ok: true });
    // A volume the agent lacks fails its group, before it runs.
    expect(await cp.call('launchGroup', group('ex', [onVolume('v4', 'nowhere', 'true'), task('v5', 'true')]))).toEqual({ ok: true });
    await until(() => ended('v4', 'v5'));
    expect(cp.last('v4')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    expect(cp.last('v4')?.message).toMatch(/persistent volume nowhere of role 'db' is not on this agent/);
    expect(cp.last('v5')?.state).toBe('FAILED');
    expect(cp.states('v5')).not.toContain('RUNNING');

    expect(await cp.call('kill', { frameworkId: 'fw', taskId: 'v1' })).toEqual({ ok: true });
    await until(() => ended('v1', 'v2'));
    expect(await destroy('gv1')).toEqual({ ok: true });
    expect(await destroy('gv2')).toEqual({ ok: true });
  }, 60_000);
});
