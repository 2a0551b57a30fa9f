export enum HistoryErrorCode {
  CYCLE_NOT_FOUND = 'CYCLE_NOT_FOUND',
}
