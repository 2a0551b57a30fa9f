import { registerErrorCodes } from '../errors/errors.mapping';

export enum SandboxesErrorCode {
  SANDBOX_UNREACHABLE = 'SANDBOX_UNREACHABLE',
  SANDBOX_PATH_INVALID = 'SANDBOX_PATH_INVALID',
  SANDBOX_FILE_NOT_FOUND = 'SANDBOX_FILE_NOT_FOUND',
  SANDBOX_NOT_A_FILE = 'SANDBOX_NOT_A_FILE',
}

registerErrorCodes('sandboxes', SandboxesErrorCode);
