/**
 * Persistent volumes of the tasks a DEFAULT executor runs (LAUNCH_GROUP): each task sees the
 * volumes its resources name in its own sandbox (`tasks/<task id>` under the executor's, where
 * the default executor runs it), at their container paths, as symbolic links (the group's tasks
 * live in the executor's container, which runs already when a later group arrives: nothing is
 * mounted for them, as Mesos's `filesystem/posix`). Each task holds its volumes until it ends,
 * so that a DESTROY is refused meanwhile.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Containerizer } from '../containerizer/containerizer';
import type { ExecutorRun, ExecutorTask } from './executor-run';

/** Who holds a task's volumes (released with the executor's container too: see PersistentVolumes.release). */
export const taskHolder = (run: ExecutorRun, taskId: string): string => `${run.container.name}/${taskId}`;

/**
 * Links the volumes of `tasks` (a DEFAULT executor's, once its user is known) into their
 * sandboxes. A group lives or dies together: the first failure releases them all and is returned.
 */
export function linkTaskVolumes(containerizer: Containerizer, run: ExecutorRun, tasks: readonly ExecutorTask[]): string | undefined {
  if (run.spec.type !== 'DEFAULT' || run.uid === undefined) return undefined;
  const owner = process.getuid?.() === 0 && run.gid !== undefined ? { uid: run.uid, gid: run.gid } : undefined;
  for (const t of tasks) {
    if (!t.spec.resources.some((e) => e.name === 'disk' && e.volume)) continue;
    const sandbox = path.join(run.container.sandbox, 'tasks', t.spec.taskId);
    try {
      // The default executor makes the task's directory as the task's user: made here first, it is the user's too.
      for (const dir of [path.dirname(sandbox), sandbox]) {
        fs.mkdirSync(dir, { recursive: true });
        if (owner) fs.chownSync(dir, owner.uid, owner.gid);
      }
      containerizer.volumes.use(taskHolder(run, t.spec.taskId), t.spec.resources, {
        sandbox,
        image: false,
        mounts: false,
        ...(owner ? { owner } : {}),
      });
    } catch (e) {
      for (const other of tasks) containerizer.volumes.release(taskHolder(run, other.spec.taskId));
      return `task ${t.spec.taskId}: ${(e as Error).message}`;
    }
  }
  return undefined;
}
