/**
 * An executor's SUBSCRIBE after an agent restart, spoken by a raw HTTP client for an executor
 * process that never speaks itself (Mesos's agent, src/slave/slave.cpp, subscribe): the tasks it
 * lists as held (`unacknowledged_tasks`) stay its own, a task it was handed and neither holds nor
 * reported on is lost (TASK_LOST, REASON_AGENT_RESTARTED), a task it holds that the agent does
 * not know is ignored, and its unacknowledged updates are sent on.
 */
import type { ExecutorSpec, LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { FakeControlPlane } from '../../support/fake-control-plane';
import { executorBed } from '../../support/executor-bed';
import { subscribe, type SubscribeStream } from '../../support/executor-calls';

const until = (check: () => boolean, what = 'the executor condition') => untilWithin(check, 20_000, what);

/** An executor whose process only sleeps: the test speaks the API for it. */
const silent: ExecutorSpec = {
  executorId: 'raw',
  type: 'CUSTOM',
  command: { shell: 'sleep 600' },
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: 32 },
  ],
};
const taskOn = (taskId: string): LaunchTask => ({
  frameworkId: 'fw',
  task: { taskId, name: taskId, executor: silent, resources: [{ name: 'cpus', value: 0.1 }] },
});
const ids = { framework_id: { value: 'fw' }, executor_id: { value: 'raw' } };
const taskInfo = (taskId: string) => ({ name: taskId, task_id: { value: taskId }, agent_id: { value: 'agent-1' }, resources: [] });
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe("an executor's SUBSCRIBE after an agent restart (raw HTTP)", () => {
  const bed = executorBed('arbiter-resubscribe-', { executors: { registrationTimeoutMs: 60_000 } });
  let cp: FakeControlPlane;
  const streams: SubscribeStream[] = [];
  beforeEach(() => (cp = bed.cp));
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  it('keeps the tasks it holds, loses a handed task it does not, ignores one it invents, and sends its updates on', async () => {
    const first = await bed.agentOn();
    for (const id of ['held', 'reported', 'never-reached']) cp.launch(taskOn(id));
    await until(() => first.executors.find('fw', 'raw')?.container.pid !== undefined, 'the executor started');
    const run = first.executors.find('fw', 'raw');
    const token = run?.token ?? '';
    const before = await subscribe(first.executorApi.endpoint as { host: string; port: number }, { ...ids, type: 'SUBSCRIBE' }, token);
    streams.push(before);
    expect(before.status).toBe(200);
    await until(() => before.events.filter((e) => e.type === 'LAUNCH').length === 3, 'the three tasks handed to it');
    // The agent goes away before the executor reports on any of them.
    await first.stop();
    bed.forget(first);
    before.close();

    const second = await bed.agentOn({ executors: { registrationTimeoutMs: 60_000, recoveryTimeoutMs: 60_000 } });
    expect(second.executors.find('fw', 'raw')?.state).toBe('REGISTERING');
    const running = { task_id: { value: 'reported' }, state: 'TASK_RUNNING', source: 'SOURCE_EXECUTOR', uuid: b64('0123456789abcdef') };
    const after = await subscribe(
      second.executorApi.endpoint as { host: string; port: number },
      {
        ...ids,
        type: 'SUBSCRIBE',
        subscribe: {
          unacknowledged_tasks: [taskInfo('held'), taskInfo('reported'), taskInfo('invented')],
          unacknowledged_updates: [{ framework_id: ids.framework_id, status: running }],
        },
      },
      token,
    );
    streams.push(after);
    expect(after.status).toBe(200);
    await until(() => cp.last('never-reached') !== undefined && cp.last('reported') !== undefined, 'the lost task and the update');
    expect(cp.last('never-reached')).toMatchObject({
      state: 'LOST',
      reason: 'REASON_AGENT_RESTARTED',
      message: 'Task launched during agent restart',
      source: 'SOURCE_AGENT',
    });
    expect(cp.last('reported')).toMatchObject({ state: 'RUNNING', source: 'SOURCE_EXECUTOR' });
    // The one it holds stays as it was, the invented one is nobody's; nothing was launched again.
    expect(cp.statuses.filter((s) => s.taskId === 'held' || s.taskId === 'invented')).toEqual([]);
    const executor = second.executors.find('fw', 'raw');
    expect([...(executor?.tasks.keys() ?? [])].sort()).toEqual(['held', 'never-reached', 'reported']);
    expect(executor?.tasks.get('held')?.state).toBe('STAGING');
    // Subscribed, and nothing handed to it again (the update it sent on may be ACKNOWLEDGED meanwhile).
    expect(after.events[0]?.type).toBe('SUBSCRIBED');
    expect(after.events.filter((e) => e.type.startsWith('LAUNCH'))).toEqual([]);
    // The executor can go on reporting on the task it holds.
    expect(executor?.state).toBe('RUNNING');
  }, 60_000);
});
