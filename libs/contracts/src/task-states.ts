/**
 * Task states and which are terminal (a terminal task holds no resources and never changes
 * again), defined once for the control plane, the agent, the SDK and the dashboard. Plain
 * constants, no schema library: the dashboard's pages import them (`@arbiter/contracts/task-states`).
 */
export const TASK_STATES = ['STAGING', 'STARTING', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR'] as const;
export type TaskStateName = (typeof TASK_STATES)[number];

export const TERMINAL_TASK_STATES = ['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR'] as const satisfies readonly TaskStateName[];

/** Whether a state is terminal (any string: a state read from storage or the wire). */
export function isTerminalTaskState(state: string): boolean {
  return (TERMINAL_TASK_STATES as readonly string[]).includes(state);
}
