import { sameExecutor } from '../executors/executors.handler';
import { containerOf } from './mesos-container-codec';
import { executorOf, mesosExecutorFailure, mesosStateExecutor, messageOf, shutdownOf } from './mesos-executor-codec';

const parts = {
  command: (c: { value?: string } | undefined) => ({ command: { shell: c?.value ?? '' } }),
  resources: () => [{ name: 'cpus', value: 0.5 }],
  container: containerOf,
};

describe("Mesos's executors in Arbiter's terms", () => {
  it('reads an ExecutorInfo: a CUSTOM one with its command, a DEFAULT one without, its container, refusing what a container cannot do by name', () => {
    expect(
      executorOf(
        { executor_id: { value: 'e' }, command: { value: './run' }, name: 'n', shutdown_grace_period: { nanoseconds: 2e9 }, data: 'aGk=' },
        'ACCEPT',
        parts,
      ),
    ).toEqual({
      executorId: 'e',
      type: 'CUSTOM',
      name: 'n',
      command: { shell: './run' },
      resources: [{ name: 'cpus', value: 0.5 }],
      data: 'aGk=',
      shutdownGracePeriodSeconds: 2,
    });
    expect(executorOf({ executor_id: { value: 'd' }, type: 'DEFAULT', command: { value: 'ignored' } }, 'ACCEPT', parts)).toEqual({
      executorId: 'd',
      type: 'DEFAULT',
      resources: [{ name: 'cpus', value: 0.5 }],
    });
    expect(
      executorOf(
        { executor_id: { value: 'e' }, command: { value: './run' }, container: { type: 'DOCKER', docker: { image: 'busybox' } } },
        'ACCEPT',
        parts,
      ),
    ).toMatchObject({ executorId: 'e', container: { type: 'DOCKER', image: { name: 'busybox' } } });
    expect(() =>
      executorOf({ executor_id: { value: 'e' }, container: { type: 'MESOS', tty_info: { window_size: { rows: 1 } } } }, 'ACCEPT', parts),
    ).toThrow(/ACCEPT executor 'e': container.tty_info is not supported/);
  });

  it('reads SHUTDOWN and MESSAGE, refusing what is not base64 or is missing', () => {
    const ids = { agent_id: { value: 'a' }, executor_id: { value: 'e' } };
    expect(shutdownOf({ type: 'SHUTDOWN', shutdown: ids })).toEqual({ agentId: 'a', executorId: 'e' });
    expect(messageOf({ type: 'MESSAGE', message: { ...ids, data: 'aGk=' } })).toEqual({ agentId: 'a', executorId: 'e', data: 'aGk=' });
    expect(() => messageOf({ type: 'MESSAGE', message: { ...ids, data: 'not base64!' } })).toThrow(/MESSAGE: data/);
    expect(() => shutdownOf({ type: 'SHUTDOWN' })).toThrow(/'shutdown' field/);
  });

  it("gives an executor's end as Mesos's wait status: the exit code in the high byte, or the signal's number", () => {
    expect(mesosExecutorFailure({ agentId: 'a', executorId: 'e', exitCode: 3 })).toEqual({
      agent_id: { value: 'a' },
      executor_id: { value: 'e' },
      status: 768,
    });
    expect(mesosExecutorFailure({ agentId: 'a', executorId: 'e', signal: 'SIGKILL' })).toMatchObject({ status: 9 });
    expect(mesosExecutorFailure({ agentId: 'a', executorId: 'e' })).not.toHaveProperty('status');
  });

  it("lists a running executor in /master/state with its container in Mesos's shape", () => {
    const spec = {
      executorId: 'e',
      type: 'CUSTOM' as const,
      command: { shell: './run' },
      resources: [{ name: 'cpus', value: 0.1 }],
      container: { type: 'MESOS' as const, image: { name: 'registry.local:5000/executor:2' } },
    };
    expect(mesosStateExecutor({ agentId: 'a', frameworkId: 'f', spec }, { cpus: 0.1 })).toMatchObject({
      executor_id: 'e',
      container: { type: 'MESOS', mesos: { image: { type: 'DOCKER', docker: { name: 'registry.local:5000/executor:2' }, cached: true } } },
    });
  });

  it('takes two ExecutorInfos for the same whatever the order of their fields', () => {
    const a = { executorId: 'e', type: 'CUSTOM' as const, command: { shell: 'x' }, resources: [{ name: 'cpus', value: 1 }] };
    const b = { resources: [{ value: 1, name: 'cpus' }], command: { shell: 'x' }, type: 'CUSTOM' as const, executorId: 'e' };
    expect(sameExecutor(a, b)).toBe(true);
    expect(sameExecutor(a, { ...b, command: { shell: 'y' } })).toBe(false);
  });
});
