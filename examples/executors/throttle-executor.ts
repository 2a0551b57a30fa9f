/**
 * The throttle example's executor, on the SDK's Executor: one process runs every task the agent
 * launches on it, at most `throttle` at a time (ExecutorInfo.data, JSON), the others waiting
 * their turn. A task works for `workMs` (TaskInfo.data, JSON) and finishes; each update names
 * this process's id. Started by `throttle-executor.js` (through throttle-executor.sh).
 */
import { Executor, type ExecutorTaskInfo } from '@arbiter/scheduler-sdk';

const decode = (data: string | undefined): Record<string, unknown> => {
  try {
    return data ? (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

export async function main(): Promise<void> {
  const executor = new Executor();
  const waiting: ExecutorTaskInfo[] = [];
  const running = new Map<string, NodeJS.Timeout>();
  let throttle = 2;
  const me = `pid ${process.pid}`;

  const next = () => {
    while (running.size < throttle) {
      const task = waiting.shift();
      if (!task) break;
      const id = task.task_id.value;
      const workMs = Number(decode(task.data).workMs ?? 500);
      running.set(
        id,
        setTimeout(() => {
          running.delete(id);
          void executor.update(id, 'TASK_FINISHED', { message: `${me}: done after ${workMs} ms` });
          next();
        }, workMs),
      );
      void executor.update(id, 'TASK_RUNNING', { message: `${me}: running, ${running.size} of ${throttle} at a time` });
    }
  };

  executor.on('launch', (task) => {
    waiting.push(task);
    next();
  });
  executor.on('kill', (taskId) => {
    const timer = running.get(taskId);
    const queued = waiting.findIndex((t) => t.task_id.value === taskId);
    if (timer) clearTimeout(timer);
    if (queued >= 0) waiting.splice(queued, 1);
    running.delete(taskId);
    void executor.update(taskId, 'TASK_KILLED', { message: `${me}: killed` });
    next();
  });
  executor.on('shutdown', () => {
    executor.close();
    process.exit(0);
  });
  const subscribed = await executor.start();
  throttle = Number(decode(subscribed.executor_info.data).throttle ?? throttle) || throttle;
}
