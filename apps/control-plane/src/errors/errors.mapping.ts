/**
 * The one mapping from error codes to HTTP statuses. Every module's code enum is part of
 * ErrorCode, and STATUS must name each code: adding a code without a status fails to compile.
 */
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

const STATUS: Readonly<Record<ErrorCode, number>> = {
  [CommonErrorCode.VALIDATION_FAILED]: 400,
  [CommonErrorCode.MALFORMED_JSON]: 400,
  [CommonErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [CommonErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [CommonErrorCode.ROUTE_NOT_FOUND]: 404,
  [CommonErrorCode.CONCURRENT_UPDATE]: 409,
  [CommonErrorCode.DATABASE_UNAVAILABLE]: 503,
  [CommonErrorCode.INTERNAL_ERROR]: 500,
  [AuthErrorCode.AUTH_TOKEN_MISSING]: 401,
  [AuthErrorCode.AUTH_TOKEN_INVALID]: 401,
  [AgentsErrorCode.AGENT_NOT_FOUND]: 404,
  [AgentsErrorCode.AGENT_GONE]: 409,
  [AgentsErrorCode.AGENT_STILL_DRAINING]: 409,
  [AgentsErrorCode.AGENT_ALREADY_DRAINING]: 409,
  [FrameworksErrorCode.FRAMEWORK_NOT_FOUND]: 404,
  [FrameworksErrorCode.FRAMEWORK_NOT_CONNECTED]: 409,
  [TasksErrorCode.TASK_NOT_FOUND]: 404,
  [HistoryErrorCode.CYCLE_NOT_FOUND]: 404,
  [RolesErrorCode.ROLE_REPEATED]: 400,
  [RolesErrorCode.QUOTA_NOT_FOUND]: 404,
  [RolesErrorCode.QUOTA_GUARANTEE_EXCEEDS_LIMIT]: 400,
  [RolesErrorCode.QUOTA_HIERARCHY_VIOLATION]: 400,
  [RolesErrorCode.QUOTA_EXCEEDS_CAPACITY]: 409,
  [ReservationsErrorCode.RESERVATION_NOT_FOUND]: 404,
  [ReservationsErrorCode.RESERVATION_INSUFFICIENT_RESOURCES]: 409,
  [ReservationsErrorCode.RESERVATION_IN_USE]: 409,
  [MaintenanceErrorCode.MAINTENANCE_DUPLICATE_MACHINE]: 400,
  [MaintenanceErrorCode.MAINTENANCE_DOWN_MACHINE_REMOVED]: 409,
  [MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_SCHEDULED]: 409,
  [MaintenanceErrorCode.MAINTENANCE_MACHINE_ALREADY_DOWN]: 409,
  [MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_DOWN]: 409,
};

export function httpStatusOf(code: ErrorCode): number {
  return STATUS[code];
}

/** Every code with its status (for documentation and the OpenAPI error schema). */
export function allErrorCodes(): Array<{ code: ErrorCode; status: number }> {
  // The keys of STATUS are exactly the ErrorCode values: it is typed by them.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
  return (Object.keys(STATUS) as ErrorCode[]).map((code) => ({ code, status: STATUS[code] }));
}
