import { TaskSpec } from './common';
import { LaunchGroupOperation } from './executors';

const task = { taskId: 't', name: 't', resources: [{ name: 'cpus', value: 0.1 }] };
const uris = [{ value: 'http://h/agent.jar', cache: true }];

describe('fetch URIs in specs', () => {
  it("takes a command task's URIs and an executor's, refuses those of a task run by an executor or in a group", () => {
    expect(TaskSpec.safeParse({ ...task, command: { shell: 'java -jar agent.jar' }, uris }).success).toBe(true);
    const executor = { executorId: 'e', type: 'CUSTOM', command: { shell: './e' }, resources: [], uris };
    expect(TaskSpec.safeParse({ ...task, executor }).success).toBe(true);
    const onExecutor = TaskSpec.safeParse({ ...task, executor, uris });
    expect(onExecutor.error?.issues[0].path).toEqual(['uris']);
    expect(onExecutor.error?.issues[0].message).toContain('give the URIs to its executor');
    const group = LaunchGroupOperation.safeParse({
      type: 'LAUNCH_GROUP',
      executor: { executorId: 'd', type: 'DEFAULT', resources: [] },
      tasks: [{ ...task, command: { shell: 'x' }, uris }],
    });
    expect(group.error?.issues[0].message).toContain("give the URIs to the group's executor");
    expect(TaskSpec.safeParse({ ...task, command: { shell: 'x' }, uris: [{ value: 'http://h/a', mode: 1 }] }).success).toBe(false);
  });
});
