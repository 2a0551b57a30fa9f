import { registerErrorCodes } from '../errors/errors.mapping';

export enum ReservationsErrorCode {
  RESERVATION_NOT_FOUND = 'RESERVATION_NOT_FOUND',
  RESERVATION_INSUFFICIENT_RESOURCES = 'RESERVATION_INSUFFICIENT_RESOURCES',
  RESERVATION_IN_USE = 'RESERVATION_IN_USE',
  RESERVATION_REFINEMENT_INVALID = 'RESERVATION_REFINEMENT_INVALID',
}

registerErrorCodes('reservations', ReservationsErrorCode);
