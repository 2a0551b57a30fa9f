import { registerErrorCodes } from '../errors/errors.mapping';

export enum WhatIfErrorCode {
  SIMULATION_TOO_LARGE = 'SIMULATION_TOO_LARGE',
  SIMULATION_BUSY = 'SIMULATION_BUSY',
}

registerErrorCodes('what-if', WhatIfErrorCode);
