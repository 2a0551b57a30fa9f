/** Codes of failures that belong to no single module: transport, validation, the database. */
import { registerErrorCodes } from './errors.mapping';

export enum CommonErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  MALFORMED_JSON = 'MALFORMED_JSON',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  NOT_ACCEPTABLE = 'NOT_ACCEPTABLE',
  ROUTE_NOT_FOUND = 'ROUTE_NOT_FOUND',
  CONCURRENT_UPDATE = 'CONCURRENT_UPDATE',
  DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  /** A standby could not hand an operation that needs the leader to it. */
  NO_LEADER = 'NO_LEADER',
}

registerErrorCodes('common', CommonErrorCode);
