/** The metrics of the status updates the master records. */
import { isTerminalTaskState, type StatusUpdate } from '@arbiter/contracts';
import type { Metrics } from '../health/metrics';
import { type TaskEntity, TaskState } from './task.entity';

/**
 * Counts recorded updates by source, observes agents' updates' lag behind `now` (ms), and counts
 * the tasks they ended by state and reason. `fresh`: the uuids recorded now (not repeats);
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
    if (moved.get(task.id) === state && isTerminalTaskState(state)) metrics.taskEnds.inc({ state, reason: update.reason ?? 'none' });
  }
}
