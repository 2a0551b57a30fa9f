import { registerErrorCodes } from '../errors/errors.mapping';

export enum HistoryErrorCode {
  CYCLE_NOT_FOUND = 'CYCLE_NOT_FOUND',
}

registerErrorCodes('history', HistoryErrorCode);
