/**
 * Persistent volumes across an agent restart, with real processes: a task and an executor that
 * use volumes keep running while the agent restarts, and the restarted agent still refuses to
 * destroy their volumes (VOLUME_IN_USE), their data kept (a task group's task's too); once the task
 * ends, its volume can go. Two tasks use a shared volume at once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Reply, ResourceEntry } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { Agent } from '../../../src/agent';
import { executorBed } from '../../support/executor-bed';

const until = (check: () => boolean, what = 'the volume condition') => untilWithin(check, 20_000, what);
const volume = (id: string): ResourceEntry => ({ name: 'disk', value: 10, reservation: 'db', volume: id });
const cpus: ResourceEntry = { name: 'cpus', value: 0.1 };

const made = (agent: Agent, id: string) =>
  new Promise<Reply>((resolve) => agent.tasks.containerizer.volumes.create({ role: 'db', id, containerPath: 'data', mode: 'RW' }, resolve));
const destroyed = (agent: Agent, id: string) =>
  new Promise<Reply>((resolve) => agent.tasks.containerizer.volumes.destroy({ role: 'db', id }, resolve));

describe('persistent volumes across an agent restart (real processes)', () => {
  const bed = executorBed('arbiter-volumes-', { executors: { registrationTimeoutMs: 60_000 } });

  it('the restarted agent refuses to destroy the volumes of a recovered task and executor, and destroys a volume once its task ended', async () => {
    const cp = bed.cp;
    const first = await bed.agentOn();
    expect(await made(first, 'pv-task')).toMatchObject({ ok: true });
    expect(await made(first, 'pv-ex')).toMatchObject({ ok: true });
    const pathOf = (id: string) => first.tasks.containerizer.volumes.pathOf('db', id);
    cp.launch({
      frameworkId: 'fw',
      task: {
        taskId: 'writer',
        name: 'writer',
        command: { shell: 'echo kept > data/file && exec sleep 600' },
        resources: [cpus, volume('pv-task')],
      },
    });
    cp.launch({
      frameworkId: 'fw',
      task: {
        taskId: 'on-ex',
        name: 'on-ex',
        executor: {
          executorId: 'ex',
          type: 'CUSTOM',
          command: { shell: 'echo mine > data/file && exec sleep 600' },
          resources: [cpus, volume('pv-ex')],
        },
        resources: [cpus],
      },
    });
    await until(() => cp.states('writer').includes('RUNNING'), 'the task runs');
    await until(
      () => fs.existsSync(path.join(pathOf('pv-task'), 'file')) && fs.existsSync(path.join(pathOf('pv-ex'), 'file')),
      'both wrote',
    );
    expect(await destroyed(first, 'pv-task')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
    await first.stop();
    bed.forget(first);

    const second = await bed.agentOn();
    // The restarted agent knows who holds them: both are refused, their data kept.
    expect(await destroyed(second, 'pv-task')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
    expect(await destroyed(second, 'pv-ex')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
    expect(fs.readFileSync(path.join(pathOf('pv-task'), 'file'), 'utf8')).toBe('kept\n');
    expect(fs.readFileSync(path.join(pathOf('pv-ex'), 'file'), 'utf8')).toBe('mine\n');

    // Once the recovered task ended, its volume is free again.
    expect(second.tasks.kill('fw', 'writer', 0)).toBe(true);
    await until(() => cp.last('writer')?.state === 'KILLED', 'the recovered task killed');
    expect(await destroyed(second, 'pv-task')).toEqual({ ok: true });
    expect(fs.existsSync(pathOf('pv-task'))).toBe(false);
    expect(await destroyed(second, 'pv-ex')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
  });
  it('two tasks use a shared volume at once, each at its container path; it is destroyed only once both ended', async () => {
    const cp = bed.cp;
    const agent = await bed.agentOn();
    expect(await made(agent, 'shared')).toMatchObject({ ok: true });
    const shared: ResourceEntry = { ...volume('shared'), shared: true };
    for (const taskId of ['s1', 's2'])
      cp.launch({
        frameworkId: 'fw',
        task: {
          taskId,
          name: taskId,
          command: { shell: `echo ${taskId} > data/${taskId} && exec sleep 600` },
          resources: [cpus, shared],
        },
      });
    const where = agent.tasks.containerizer.volumes.pathOf('db', 'shared');
    await until(() => ['s1', 's2'].every((id) => fs.existsSync(path.join(where, id))), 'both tasks wrote in the shared volume');
    expect(fs.readdirSync(where).sort()).toEqual(['s1', 's2']);
    expect(agent.tasks.kill('fw', 's1', 0)).toBe(true);
    await until(() => cp.last('s1')?.state === 'KILLED', 's1 killed');
    expect(await destroyed(agent, 'shared')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
    expect(agent.tasks.kill('fw', 's2', 0)).toBe(true);
    await until(() => cp.last('s2')?.state === 'KILLED', 's2 killed');
    expect(await destroyed(agent, 'shared')).toEqual({ ok: true });
  });

  it("the restarted agent refuses to destroy the volume of a task group's running task", async () => {
    const cp = bed.cp;
    const first = await bed.agentOn();
    expect(await made(first, 'pv-group')).toMatchObject({ ok: true });
    const executor = { executorId: 'dx', type: 'DEFAULT' as const, resources: [cpus, { name: 'mem', value: 256 }] };
    const task = {
      taskId: 'g1',
      name: 'g1',
      command: { shell: 'echo group > data/file && exec sleep 600' },
      resources: [cpus, volume('pv-group')],
    };
    expect(await cp.call('launchGroup', { frameworkId: 'fw', executor, tasks: [task] })).toEqual({ ok: true });
    const file = path.join(first.tasks.containerizer.volumes.pathOf('db', 'pv-group'), 'file');
    // The default executor is a node process: it starts in a few seconds (with room for its memory).
    await untilWithin(() => fs.existsSync(file), 60_000, 'the group task wrote');
    await first.stop();
    bed.forget(first);
    const second = await bed.agentOn();
    expect(await destroyed(second, 'pv-group')).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
    expect(fs.readFileSync(file, 'utf8')).toBe('group\n');
  }, 90_000);
});
