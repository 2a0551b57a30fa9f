/**
 * The throttle example's two executors (examples/mesos/throttle-executor.js on Mesos's v1
 * executor API, examples/executors/throttle-executor.js on the SDK's Executor) on a real agent,
 * started as the example's scheduler starts them (`/bin/sh <dir>/throttle-executor.sh`): every
 * task runs in the one executor process, at most two at a time, and a kill ends a task.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import { executorBed } from '../../support/executor-bed';

const until = (check: () => boolean, what: string) => untilWithin(check, 30_000, what);
const EXAMPLES = path.resolve(__dirname, '../../../../../examples');
const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe.each([
  // Memory as each example's scheduler gives it: the SDK's executor compiles TypeScript when it starts.
  ['on the Mesos executor API', path.join(EXAMPLES, 'mesos', 'throttle-executor.js'), 64],
  ["on the SDK's Executor", path.join(EXAMPLES, 'executors', 'throttle-executor.js'), 256],
])('the throttle example executor %s', (_, program, mem) => {
  const bed = executorBed('arbiter-throttle-');

  const start = async () => {
    const script = path.join(bed.dir, 'throttle-executor.sh');
    fs.writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(program)} "$@"\n`, { mode: 0o755 });
    const agent = await bed.agentOn({
      resources: [
        { name: 'cpus', value: 2 },
        { name: 'mem', value: 1024 },
      ],
    });
    const executor: ExecutorSpec = {
      executorId: 'throttle',
      type: 'CUSTOM',
      command: { shell: `/bin/sh ${script}` },
      resources: [
        { name: 'cpus', value: 0.1 },
        { name: 'mem', value: mem },
      ],
      data: json({ throttle: 2 }),
    };
    const launch = (taskId: string, workMs: number): LaunchTask => ({
      frameworkId: 'fw',
      task: { taskId, name: taskId, executor, resources: [{ name: 'cpus', value: 0.1 }], data: json({ workMs }) },
    });
    return { agent, launch };
  };

  it('runs every task in its one process, at most two at a time', async () => {
    const { agent, launch } = await start();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (const id of ids) bed.cp.launch(launch(id, 300));
    await until(() => ids.every((id) => bed.cp.states(id).includes('FINISHED')), 'every task FINISHED');
    for (const id of ids) expect(bed.cp.states(id)).toEqual(['RUNNING', 'FINISHED']);
    expect(agent.executors.runs.size).toBe(1);
    const messages = bed.cp.statuses.map((s) => s.message ?? '');
    expect(new Set(messages.map((m) => /^pid (\d+):/.exec(m)?.[1])).size).toBe(1);
    const running = messages.filter((m) => m.includes('at a time')).map((m) => Number(/running, (\d+) of 2/.exec(m)?.[1]));
    expect(running).toHaveLength(5);
    expect(Math.max(...running)).toBe(2);
    // Two at a time: the last task waited for a slot, so it started after the first ones finished.
    const order = bed.cp.statuses.map((s) => `${s.taskId} ${s.state}`);
    expect(order.indexOf('e RUNNING')).toBeGreaterThan(order.indexOf('a FINISHED'));
  });

  it('kills a running task and a waiting one: TASK_KILLED, the others finish', async () => {
    const { launch } = await start();
    for (const id of ['long-1', 'long-2', 'queued']) bed.cp.launch(launch(id, 60_000));
    await until(() => bed.cp.states('long-1').includes('RUNNING') && bed.cp.states('long-2').includes('RUNNING'), 'two tasks RUNNING');
    expect(bed.cp.states('queued')).toEqual([]);
    expect(await bed.cp.call('kill', { frameworkId: 'fw', taskId: 'queued' })).toEqual({ ok: true });
    expect(await bed.cp.call('kill', { frameworkId: 'fw', taskId: 'long-1' })).toEqual({ ok: true });
    await until(() => bed.cp.states('queued').includes('KILLED') && bed.cp.states('long-1').includes('KILLED'), 'both KILLED');
    expect(bed.cp.states('queued')).toEqual(['KILLED']);
    expect(bed.cp.states('long-1')).toEqual(['RUNNING', 'KILLED']);
    expect(bed.cp.states('long-2')).toEqual(['RUNNING']);
  });
});
