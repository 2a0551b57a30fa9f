/** Status updates sent again: an unacknowledged one as recorded, and which held ones follow them. */
import type { StatusUpdate, TaskState } from '@arbiter/contracts';
import { taskKey } from '../master/cluster-state';
import type { UnacknowledgedUpdate } from './tasks.repository';

/** The update as the framework first got it, from the master's record of it. */
export function statusUpdateOf(r: UnacknowledgedUpdate): StatusUpdate {
  return {
    updateUuid: r.updateUuid,
    frameworkId: r.frameworkId,
    taskId: r.taskId,
    agentId: r.agentId,
    state: r.state as TaskState,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.message ? { message: r.message } : {}),
    timestamp: r.at.toISOString(),
    source: r.source as StatusUpdate['source'],
    ...r.executorFields,
  };
}

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
