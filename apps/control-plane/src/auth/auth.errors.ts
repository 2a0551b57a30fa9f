import { registerErrorCodes } from '../errors/errors.mapping';

export enum AuthErrorCode {
  AUTH_TOKEN_MISSING = 'AUTH_TOKEN_MISSING',
  AUTH_TOKEN_INVALID = 'AUTH_TOKEN_INVALID',
  /** The principal may not do this: its kind lacks the permission, or an ACL refuses it. */
  FORBIDDEN = 'FORBIDDEN',
  PRINCIPAL_NOT_FOUND = 'PRINCIPAL_NOT_FOUND',
  PRINCIPAL_EXISTS = 'PRINCIPAL_EXISTS',
  PRINCIPAL_DISABLED = 'PRINCIPAL_DISABLED',
  TOKEN_NOT_FOUND = 'TOKEN_NOT_FOUND',
  /** DELETE /api/v1/sessions/current with a token that is not a session's. */
  NOT_A_SESSION = 'NOT_A_SESSION',
  ACLS_INVALID = 'ACLS_INVALID',
}

registerErrorCodes('auth', AuthErrorCode);
