import { registerErrorCodes } from '../errors/errors.mapping';

export enum VolumesErrorCode {
  VOLUME_NOT_FOUND = 'VOLUME_NOT_FOUND',
  VOLUME_EXISTS = 'VOLUME_EXISTS',
  VOLUME_INSUFFICIENT_DISK = 'VOLUME_INSUFFICIENT_DISK',
  VOLUME_IN_USE = 'VOLUME_IN_USE',
  VOLUME_AGENT_UNREACHABLE = 'VOLUME_AGENT_UNREACHABLE',
  VOLUME_AGENT_FAILED = 'VOLUME_AGENT_FAILED',
}

registerErrorCodes('volumes', VolumesErrorCode);
