/**
 * The operator API's calls: which Arbiter serves (reads, writes, SUBSCRIBE), which it refuses by
 * name, who may make each, and the checks of a call's fields, each failing with a 400 that says
 * which field of which call is wrong (INVALID_MESSAGE), as the scheduler API's do.
 */
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Permission } from '../auth/permissions';
import { validationException } from '../errors/errors.validation';
import { ProtocolError } from '../kernel/protocol-error';

export const READ_CALLS = [
  'GET_HEALTH',
  'GET_FLAGS',
  'GET_VERSION',
  'GET_METRICS',
  'GET_LOGGING_LEVEL',
  'GET_STATE',
  'GET_AGENTS',
  'GET_FRAMEWORKS',
  'GET_EXECUTORS',
  'GET_OPERATIONS',
  'GET_TASKS',
  'GET_ROLES',
  'GET_WEIGHTS',
  'GET_MASTER',
  'GET_MAINTENANCE_STATUS',
  'GET_MAINTENANCE_SCHEDULE',
  'GET_QUOTA',
] as const;
export type ReadCall = (typeof READ_CALLS)[number];

export const WRITE_CALLS = [
  'SET_LOGGING_LEVEL',
  'UPDATE_WEIGHTS',
  'RESERVE_RESOURCES',
  'UNRESERVE_RESOURCES',
  'UPDATE_MAINTENANCE_SCHEDULE',
  'START_MAINTENANCE',
  'STOP_MAINTENANCE',
  'UPDATE_QUOTA',
  'DRAIN_AGENT',
  'DEACTIVATE_AGENT',
  'REACTIVATE_AGENT',
  'MARK_AGENT_GONE',
  'TEARDOWN',
  'CREATE_VOLUMES',
  'DESTROY_VOLUMES',
] as const;
export type WriteCall = (typeof WRITE_CALLS)[number];

/** Mesos's calls Arbiter does not serve, refused by name (400 UNSUPPORTED), and why. */
export const REFUSED_CALLS: Record<string, string> = {
  GROW_VOLUME: 'persistent volumes are not resized: destroy it and create a larger one',
  SHRINK_VOLUME: 'persistent volumes are not resized: destroy it and create a smaller one',
  LIST_FILES: "the master has no files to browse: read a task's sandbox with GET /api/v1/tasks/{id}/files",
  READ_FILE: "the master has no files to read: read a task's sandbox with GET /api/v1/tasks/{id}/files",
  SET_QUOTA: 'SET_QUOTA is deprecated in Mesos: use UPDATE_QUOTA',
  REMOVE_QUOTA: 'REMOVE_QUOTA is deprecated in Mesos: use UPDATE_QUOTA with no guarantees and no limits',
};

/** Calls every replica answers itself; a standby sends the others to the leader (307). */
export const LOCAL_CALLS = new Set<string>(['GET_HEALTH', 'GET_FLAGS', 'GET_VERSION', 'GET_LOGGING_LEVEL', 'SET_LOGGING_LEVEL']);

/** The permission each kind of call needs, as its REST equivalent does (auth/permissions.ts). */
export function permissionOf(type: string): Permission {
  if (type === 'SET_LOGGING_LEVEL') return 'admin';
  return (WRITE_CALLS as readonly string[]).includes(type) ? 'operate' : 'read';
}

export const isRead = (type: string): type is ReadCall => (READ_CALLS as readonly string[]).includes(type);
export const isWrite = (type: string): type is WriteCall => (WRITE_CALLS as readonly string[]).includes(type);

/** The call's type, refused with a stable code when missing, unknown or not served. */
export function callType(call: Record<string, unknown>): string {
  const type = call.type;
  if (type === undefined || type === 'UNKNOWN')
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "the call needs a 'type' (GET_STATE, SUBSCRIBE, ...)");
  if (typeof type !== 'string') throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `unknown call type ${JSON.stringify(type)}`);
  if (REFUSED_CALLS[type])
    throw new ProtocolError(
      PROTOCOL_ERRORS.UNSUPPORTED,
      `${type} is not supported by Arbiter: ${REFUSED_CALLS[type]} (docs/mesos-compat.md)`,
    );
  if (type !== 'SUBSCRIBE' && !isRead(type) && !isWrite(type))
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `unknown call type '${type}' (docs/mesos-compat.md lists the operator calls)`);
  return type;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The call's message for its type (`drain_agent` of DRAIN_AGENT), which must be there. */
export function body(call: Obj, type: string): Obj {
  const field = type.toLowerCase();
  const value = call[field];
  if (!isObj(value)) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${type}: the call needs a '${field}' object`);
  return value;
}

/** An id field (`{ value }`) of a call's message. */
export function idOf(message: Obj, field: string, type: string): string {
  const v = message[field];
  const value = isObj(v) ? v.value : undefined;
  if (typeof value !== 'string' || !value)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${type}: '${field}' must be { "value": "<id>" }`);
  return value;
}

/** A list field of a call's message (absent: empty). */
export function listOf(message: Obj, field: string, type: string): Obj[] {
  const v = message[field];
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isObj))
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${type}: '${field}' must be a list of objects`);
  return v;
}

/** A number of seconds from Mesos's DurationInfo (`{ nanoseconds }`) or a protobuf Duration (`{ seconds, nanos }`). */
export function secondsOf(value: unknown, field: string, type: string): number {
  if (isObj(value)) {
    const n = 'nanoseconds' in value ? Number(value.nanoseconds) / 1e9 : Number(value.seconds ?? 0) + Number(value.nanos ?? 0) / 1e9;
    if (Number.isFinite(n) && n >= 0) return n;
  }
  throw new ProtocolError(
    PROTOCOL_ERRORS.INVALID_MESSAGE,
    `${type}: '${field}' must be a duration ({ "nanoseconds": n } or { "seconds": n }) of zero or more`,
  );
}

/** A DTO of the REST API built from `plain` and checked as its route checks it (400 VALIDATION_FAILED naming each field). */
export async function checked<T extends object>(cls: new () => T, plain: Obj): Promise<T> {
  const dto = plainToInstance(cls, plain);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, stopAtFirstError: true });
  if (errors.length) throw validationException(errors);
  return dto;
}
