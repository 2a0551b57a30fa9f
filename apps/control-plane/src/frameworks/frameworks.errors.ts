import { registerErrorCodes } from '../errors/errors.mapping';

export enum FrameworksErrorCode {
  FRAMEWORK_NOT_FOUND = 'FRAMEWORK_NOT_FOUND',
  FRAMEWORK_NOT_CONNECTED = 'FRAMEWORK_NOT_CONNECTED',
}

registerErrorCodes('frameworks', FrameworksErrorCode);
