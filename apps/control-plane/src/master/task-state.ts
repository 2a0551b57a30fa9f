import { TERMINAL_TASK_STATES as TERMINAL, type TaskStateName } from '@arbiter/contracts';

/** A task's state, as the database's enum `task_state` (tasks/task.entity.ts) and the live tasks keep it. */
export enum TaskState {
  STAGING = 'STAGING',
  STARTING = 'STARTING',
  RUNNING = 'RUNNING',
  KILLING = 'KILLING',
  FINISHED = 'FINISHED',
  FAILED = 'FAILED',
  KILLED = 'KILLED',
  LOST = 'LOST',
  ERROR = 'ERROR',
  DROPPED = 'DROPPED',
  UNREACHABLE = 'UNREACHABLE',
  GONE = 'GONE',
  GONE_BY_OPERATOR = 'GONE_BY_OPERATOR',
  UNKNOWN = 'UNKNOWN',
}

/** The database enum is the contracts' list of states: this fails to compile when they differ. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const TASK_STATES_MATCH: Same<`${TaskState}`, TaskStateName> = true;

/** States after which a task holds no resources (the contracts' list, as the entity's enum). */
export const TERMINAL_TASK_STATES: readonly TaskState[] = TERMINAL.map((s) => TaskState[s]);
/** The same states as an SQL list: `state IN ${TERMINAL_TASK_STATES_SQL}`. */
export const TERMINAL_TASK_STATES_SQL = `(${TERMINAL_TASK_STATES.map((s) => `'${s}'`).join(', ')})`;
