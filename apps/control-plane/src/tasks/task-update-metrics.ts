/** The metrics of the status updates the master records. */
import { isTerminalTaskState, type StatusUpdate } from '@arbiter/contracts';
import type { Metrics } from '../health/metrics';
import { type TaskEntity, TaskState } from './task.entity';

const HEALTH_UPDATED = 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED';

/**
 * Counts recorded updates by source, observes agents' updates' lag behind `now` (ms), and counts
 * the tasks they ended by state and reason, and the changes of health its checks reported
 * (and their kills). `fresh`: the uuids recorded now (not repeats);
 * `moved`: the state each task moved to.
 */
export function countUpdates(
  metrics: Metrics,
  now: number,
  items: Array<{ task: TaskEntity; update: StatusUpdate }>,
  fresh: Set<string>,
  moved: Map<string, TaskState>,
): void {
  for (const { task, update } of items) {
    if (!fresh.has(update.updateUuid)) continue;
    metrics.statusUpdates.inc({ source: update.source });
    const at = Date.parse(update.timestamp);
    if (update.source !== 'SOURCE_MASTER' && Number.isFinite(at)) metrics.statusUpdateLag.observe(Math.max(0, now - at) / 1000);
    const state = TaskState[update.state];
    const ended = moved.get(task.id) === state && isTerminalTaskState(state);
    if (ended) metrics.taskEnds.inc({ state, reason: update.reason ?? 'none' });
    if (update.reason === HEALTH_UPDATED && update.healthy !== undefined)
      metrics.taskHealth.inc({ healthy: String(update.healthy), kill: String(ended && state === TaskState.KILLED) });
  }
}
