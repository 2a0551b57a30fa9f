import { registerErrorCodes } from '../errors/errors.mapping';

export enum AgentsErrorCode {
  AGENT_NOT_FOUND = 'AGENT_NOT_FOUND',
  AGENT_GONE = 'AGENT_GONE',
  AGENT_STILL_DRAINING = 'AGENT_STILL_DRAINING',
  AGENT_ALREADY_DRAINING = 'AGENT_ALREADY_DRAINING',
}

registerErrorCodes('agents', AgentsErrorCode);
