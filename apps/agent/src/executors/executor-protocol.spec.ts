import type { TaskState } from '@arbiter/contracts';
import { uuidBytes } from './api/wire';
import { durationMs, ExecutorProtocol, mesosDuration } from './executor-protocol';
import type { ExecutorHooks, ExecutorRun } from './executor-run';
import type { Executors } from './executors';

describe('durations', () => {
  it("reads an operator's durations: seconds by default, ms, s, m, h, d, w and Mesos's secs, mins, hrs, days and weeks", () => {
    expect(['60', '500ms', '30s', '2secs', '1m', '15mins', '1.5s'].map(durationMs)).toEqual([
      60_000, 500, 30_000, 2_000, 60_000, 900_000, 1_500,
    ]);
    expect(['10h', '2hrs', '1d', '3days', '1w', '1weeks'].map(durationMs)).toEqual([
      36_000_000, 7_200_000, 86_400_000, 259_200_000, 604_800_000, 604_800_000,
    ]);
    expect(['', 'soon', '-1s', '10y', undefined].map(durationMs)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it("writes them as Mesos does in an executor's environment", () => {
    expect([900_000, 2_000, 250].map(mesosDuration)).toEqual(['15mins', '2secs', '250ms']);
  });
});

describe("an executor's updates", () => {
  /** The protocol with one executor run holding task `t` in `state`; what it records and sends. */
  function protocolWith(state: TaskState) {
    const recorded: string[] = [];
    const sent: Array<Record<string, unknown>> = [];
    const executors = { recordUpdate: (_run: unknown, _taskId: string, _uuid: string, s: { state: string }) => recorded.push(s.state) };
    const run = {
      frameworkId: 'fw',
      spec: { executorId: 'e' },
      tasks: new Map([['t', { spec: { taskId: 't' }, state, delivered: true }]]),
      awaitingAck: new Map<string, string>(),
      acknowledged: new Set<string>(),
      stream: { send: (e: Record<string, unknown>) => sent.push(e), close: () => undefined, closed: false },
    } as unknown as ExecutorRun;
    const protocol = new ExecutorProtocol(executors as unknown as Executors, {} as ExecutorHooks, 30_000);
    const update = (s: string, uuid: string) =>
      protocol.update(run, {
        type: 'UPDATE',
        framework_id: { value: 'fw' },
        executor_id: { value: 'e' },
        update: { status: { task_id: { value: 't' }, state: s, source: 'SOURCE_EXECUTOR', uuid: uuidBytes(uuid) } },
      });
    return { recorded, sent, update };
  }
  const UUID = '0f0e0d0c-0b0a-0908-0706-050403020100';

  it('takes an update of a live task', () => {
    const { recorded, sent, update } = protocolWith('RUNNING');
    update('TASK_FINISHED', UUID);
    expect(recorded).toEqual(['FINISHED']);
    expect(sent).toEqual([]);
  });

  it("takes nothing after a task's end: a late update is acknowledged at once and changes nothing", () => {
    const { recorded, sent, update } = protocolWith('FINISHED');
    update('TASK_KILLING', UUID);
    expect(recorded).toEqual([]);
    expect(sent).toEqual([{ type: 'ACKNOWLEDGED', acknowledged: { task_id: { value: 't' }, uuid: uuidBytes(UUID) } }]);
  });
});
