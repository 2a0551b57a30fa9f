import { registerErrorCodes } from '../errors/errors.mapping';

export enum TasksErrorCode {
  TASK_NOT_FOUND = 'TASK_NOT_FOUND',
}

registerErrorCodes('tasks', TasksErrorCode);
