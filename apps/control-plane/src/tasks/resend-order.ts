/** Which of a framework's held status updates go out after its unacknowledged ones were sent again. */
import type { StatusUpdate } from '@arbiter/contracts';
import { taskKey } from '../master/cluster-state';

/**
 * Of the updates recorded while a framework's unacknowledged ones were read and sent again (`held`,
 * in the order recorded), those newer than what was sent: a task's update sent again was its latest
 * when read, so its held updates before it are older (left out) and those after it newer; a task
 * with nothing sent again, or whose sent update was recorded before the hold, keeps all of its own.
 */
export function newerThanSent(held: readonly StatusUpdate[], sent: ReadonlySet<string>): StatusUpdate[] {
  const sentHeld = new Set(held.filter((u) => sent.has(u.updateUuid)).map((u) => taskKey(u.frameworkId, u.taskId)));
  const passed = new Set<string>();
  const out: StatusUpdate[] = [];
  for (const u of held) {
    const key = taskKey(u.frameworkId, u.taskId);
    if (sent.has(u.updateUuid)) passed.add(key);
    else if (!sentHeld.has(key) || passed.has(key)) out.push(u);
  }
  return out;
}
