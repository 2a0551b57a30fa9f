/**
 * The REST API's error codes (each module's enum, part of ErrorCode) and their HTTP statuses,
 * from the one registry of codes in libs/contracts (ERROR_CODES): a module code missing from the
 * registry, or without a status there, fails to compile.
 */
import { ERROR_CODES, type RestErrorCode } from '@arbiter/contracts';
import { AgentsErrorCode } from '../agents/agents.errors';
import { AuthErrorCode } from '../auth/auth.errors';
import { FrameworksErrorCode } from '../frameworks/frameworks.errors';
import { HistoryErrorCode } from '../history/history.errors';
import { MaintenanceErrorCode } from '../maintenance/maintenance.errors';
import { ReservationsErrorCode } from '../reservations/reservations.errors';
import { RolesErrorCode } from '../roles/roles.errors';
import { TasksErrorCode } from '../tasks/tasks.errors';
import { CommonErrorCode } from './errors.codes';

export type ErrorCode =
  | CommonErrorCode
  | AuthErrorCode
  | AgentsErrorCode
  | FrameworksErrorCode
  | TasksErrorCode
  | HistoryErrorCode
  | RolesErrorCode
  | ReservationsErrorCode
  | MaintenanceErrorCode;

/** The module enums are exactly the registry's REST codes (libs/contracts): this fails to compile when they differ. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const ERROR_CODES_REGISTERED: Same<`${ErrorCode}`, RestErrorCode> = true;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** Every code with its status (for documentation and the OpenAPI error schema). */
export function allErrorCodes(): Array<{ code: ErrorCode; status: number }> {
  const codes: ErrorCode[] = [
    ...Object.values(CommonErrorCode),
    ...Object.values(AuthErrorCode),
    ...Object.values(AgentsErrorCode),
    ...Object.values(FrameworksErrorCode),
    ...Object.values(TasksErrorCode),
    ...Object.values(HistoryErrorCode),
    ...Object.values(RolesErrorCode),
    ...Object.values(ReservationsErrorCode),
    ...Object.values(MaintenanceErrorCode),
  ];
  return codes.map((code) => ({ code, status: httpStatusOf(code) }));
}
