import { TaskState, type TaskEntity } from '../tasks/task.entity';
import { LiveTasks } from './cluster-state';
import { runIn } from '../kernel/order';

/** The state's owners assert that they change in a turn of the serial order (kernel/order.ts). */
const inTurn = (body: () => void) => () => runIn('turn', body);

const task = (taskId: string, role: string, resources: TaskEntity['resources'], agentId = 'a1'): TaskEntity => ({
  id: `id-${taskId}`,
  taskId,
  frameworkId: 'f1',
  agentId,
  name: taskId,
  role,
  resources,
  command: null,
  state: TaskState.RUNNING,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

const used = (live: LiveTasks) => Object.fromEntries([...live.usedByRole()].map(([role, m]) => [role, Object.fromEntries(m)]));

describe('LiveTasks: scalar resources used per role', () => {
  it(
    'sums each role as tasks come and go, in thousandths so that tenths add up exactly',
    inTurn(() => {
      const live = new LiveTasks();
      for (const id of ['a', 'b', 'c'])
        live.add(
          task(id, 'ml', [
            { name: 'cpus', value: 0.1 },
            { name: 'mem', value: 64 },
          ]),
        );
      live.add(
        task(
          'd',
          'web',
          [
            { name: 'cpus', value: 2 },
            { name: 'ports', ranges: [[31000, 31009]] },
          ],
          'a2',
        ),
      );
      expect(used(live)).toEqual({ ml: { cpus: 0.3, mem: 192 }, web: { cpus: 2 } });

      // Added again (a restore, a re-registration): counted once.
      live.add(
        task('a', 'ml', [
          { name: 'cpus', value: 0.1 },
          { name: 'mem', value: 64 },
        ]),
      );
      expect(used(live).ml).toEqual({ cpus: 0.3, mem: 192 });

      live.delete('f1', 'b');
      live.delete('f1', 'unknown');
      expect(used(live).ml).toEqual({ cpus: 0.2, mem: 128 });
      live.delete('f1', 'd');
      expect(used(live)).toEqual({ ml: { cpus: 0.2, mem: 128 } });

      live.clear();
      expect(used(live)).toEqual({});
      live.add(task('e', 'ml', [{ name: 'cpus', value: 1 }]));
      expect(used(live)).toEqual({ ml: { cpus: 1 } });
    }),
  );
});
