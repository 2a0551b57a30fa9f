export enum TasksErrorCode {
  TASK_NOT_FOUND = 'TASK_NOT_FOUND',
}
