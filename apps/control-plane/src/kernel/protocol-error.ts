import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import { isDataError } from '../database/database.service';
import { isNotLeader } from '../database/master-database';
import { CommonErrorCode } from '../errors/errors.codes';
import { toArbiterException } from '../errors/errors.filter';

/** A protocol failure answered to the caller as `{ ok: false, error }`. */
export class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * A failure the caller should hear about by its name: a protocol error as it is, a call that
 * reached a replica whose term is over (NOT_LEADER: send it to the leader), a value the
 * database refused (INVALID_MESSAGE: the message carried it) or an unavailable database
 * (DATABASE_UNAVAILABLE: try again). Anything else is the control plane's own fault.
 */
export function asProtocolError(err: unknown): ProtocolError | undefined {
  if (err instanceof ProtocolError) return err;
  if (isNotLeader(err))
    return new ProtocolError(PROTOCOL_ERRORS.NOT_LEADER, 'this control plane is no longer the leader: send this again to the leader');
  if (isDataError(err))
    return new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `the database refused a value of this message: ${(err as Error).message}`);
  if (toArbiterException(err)?.code === CommonErrorCode.DATABASE_UNAVAILABLE)
    return new ProtocolError(PROTOCOL_ERRORS.DATABASE_UNAVAILABLE, 'the database is unavailable; send this again shortly');
  return undefined;
}
