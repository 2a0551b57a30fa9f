/**
 * Task states and which are terminal (a terminal task holds no resources and never changes
 * again), defined once for the control plane, the agent, the SDK and the dashboard. Plain
 * constants, no schema library: the dashboard's pages import them (`@arbiter/contracts/task-states`).
 */
/**
 * Mesos's task states. Besides the classic ones: KILLING (a kill is under way), DROPPED (never
 * launched), UNREACHABLE (its agent is out of contact; a PARTITION_AWARE framework's task may
 * come back), GONE (its agent is gone for good), GONE_BY_OPERATOR (an operator took its agent
 * away) and UNKNOWN (reconciliation of a task the control plane does not know, for PARTITION_AWARE
 * frameworks; LOST for the others).
 */
export const TASK_STATES = [
  'STAGING',
  'STARTING',
  'RUNNING',
  'KILLING',
  'FINISHED',
  'FAILED',
  'KILLED',
  'LOST',
  'ERROR',
  'DROPPED',
  'UNREACHABLE',
  'GONE',
  'GONE_BY_OPERATOR',
  'UNKNOWN',
] as const;
export type TaskStateName = (typeof TASK_STATES)[number];

export const TERMINAL_TASK_STATES = [
  'FINISHED',
  'FAILED',
  'KILLED',
  'LOST',
  'ERROR',
  'DROPPED',
  'GONE',
  'GONE_BY_OPERATOR',
] as const satisfies readonly TaskStateName[];

/** Whether a state is terminal (any string: a state read from storage or the wire). */
export function isTerminalTaskState(state: string): boolean {
  return (TERMINAL_TASK_STATES as readonly string[]).includes(state);
}
