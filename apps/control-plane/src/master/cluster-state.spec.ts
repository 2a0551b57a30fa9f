import { LiveTasks } from './cluster-state';
import { type TaskEntity, TaskState } from '../tasks/task.entity';
import { runIn } from '../kernel/order';

/** The state's owners assert that they change in a turn of the serial order (kernel/order.ts). */
const inTurn = (body: () => void) => () => runIn('turn', body);

const task = (frameworkId: string, taskId: string, agentId: string, state = TaskState.RUNNING) =>
  ({
    id: `${frameworkId}/${taskId}`,
    frameworkId,
    taskId,
    agentId,
    name: taskId,
    role: 'r',
    resources: [],
    command: { shell: 'true' },
    state,
    createdAt: new Date(),
    updatedAt: new Date(),
  }) as TaskEntity;
const ids = (tasks: Iterable<TaskEntity>) => [...tasks].map((t) => `${t.frameworkId}/${t.taskId}`).sort();

describe('live tasks', () => {
  it(
    'finds tasks by framework and task id and by agent, without their commands',
    inTurn(() => {
      const live = new LiveTasks();
      live.add(task('f1', 'a', 'ag1'));
      live.add(task('f2', 'a', 'ag1'));
      live.add(task('f1', 'b', 'ag2'));
      expect(live.get('f1', 'a')).toMatchObject({ agentId: 'ag1', command: null });
      expect(live.get('f1', 'c')).toBeUndefined();
      expect(ids(live.onAgent('ag1'))).toEqual(['f1/a', 'f2/a']);
      expect(ids(live.onAgent('ag2'))).toEqual(['f1/b']);
      expect(ids(live.onAgent('ag3'))).toEqual([]);
    }),
  );

  it(
    'drops a task from both views; adding a task again replaces it',
    inTurn(() => {
      const live = new LiveTasks();
      live.add(task('f1', 'a', 'ag1'));
      live.add(task('f1', 'b', 'ag1'));
      live.delete('f1', 'a');
      live.delete('f1', 'missing');
      expect(live.get('f1', 'a')).toBeUndefined();
      expect(ids(live.onAgent('ag1'))).toEqual(['f1/b']);
      live.add(task('f1', 'b', 'ag1', TaskState.STARTING));
      expect([...live.onAgent('ag1')].map((t) => t.state)).toEqual([TaskState.STARTING]);
      live.delete('f1', 'b');
      expect(ids(live.onAgent('ag1'))).toEqual([]);
      live.add(task('f1', 'c', 'ag2'));
      live.clear();
      expect(live.get('f1', 'c')).toBeUndefined();
      expect(ids(live.onAgent('ag2'))).toEqual([]);
    }),
  );
});
