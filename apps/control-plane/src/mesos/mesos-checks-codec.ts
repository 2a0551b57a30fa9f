/**
 * Mesos's TaskInfo.health_check (HealthCheck) and TaskInfo.check (CheckInfo) as Arbiter's
 * HealthCheck and Check, and a check's result as Mesos's CheckStatusInfo. The type names the one
 * probe given (COMMAND, HTTP, TCP); Mesos's defaults apply where a field is absent (the agent's
 * checkers hold them). What Arbiter cannot honour is refused by name: IPv6 probes, and a check
 * command's own environment, user or URIs.
 */
import {
  type Check,
  type CheckStatus,
  type Command,
  HealthCheck,
  Check as CheckSchema,
  type MesosCheckInfo,
  type MesosCommandInfo,
  type MesosHealthCheck,
  PROTOCOL_ERRORS,
  type TaskSpec,
} from '@arbiter/contracts';
import type { z } from 'zod';
import { ProtocolError } from '../kernel/protocol-error';

const invalid = (message: string): never => {
  throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, message);
};
const unsupported = (what: string, why: string): never => {
  throw new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, `${what} is not supported: ${why}`);
};

function commandOf(c: MesosCommandInfo | undefined, where: string): Command {
  if (!c?.value) return invalid(`${where}: a COMMAND check needs command.value`);
  if (c.uris?.length || c.user !== undefined || c.environment?.variables?.length)
    unsupported(`${where}: command.uris, command.user and command.environment`, "a check's command runs as its task, with its environment");
  if (c.shell !== false) return c.arguments?.length ? invalid(`${where}: arguments need shell: false`) : { shell: c.value };
  // Mesos passes `arguments` as the whole argv, the program's name first.
  return { value: c.value, ...(c.arguments && c.arguments.length > 1 ? { arguments: c.arguments.slice(1) } : {}) };
}

function ipv4(protocol: 'IPv4' | 'IPv6' | undefined, where: string): void {
  if (protocol === 'IPv6') unsupported(`${where}: protocol IPv6`, 'checks probe 127.0.0.1');
}

const timing = (m: { delay_seconds?: number; interval_seconds?: number; timeout_seconds?: number }) => ({
  ...(m.delay_seconds !== undefined ? { delaySeconds: m.delay_seconds } : {}),
  ...(m.interval_seconds !== undefined ? { intervalSeconds: m.interval_seconds } : {}),
  // Zero is no timeout in Mesos: the longest Arbiter takes.
  ...(m.timeout_seconds !== undefined ? { timeoutSeconds: m.timeout_seconds || 86_400 } : {}),
});

/** Checks the mapped value against Arbiter's schema (its bounds), naming the field on failure. */
function checked<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) invalid(`${where}: ${r.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')}`);
  return r.data as z.infer<S>;
}

function healthCheckOf(h: MesosHealthCheck, where: string): HealthCheck {
  const w = `${where} health_check`;
  let probe: HealthCheck['probe'];
  if (h.type === 'COMMAND') probe = { type: 'COMMAND', command: commandOf(h.command, w) };
  else if (h.type === 'HTTP') {
    const http = h.http ?? invalid(`${w}: type HTTP needs http`);
    ipv4(http.protocol, w);
    if (http.scheme !== undefined && http.scheme !== 'http' && http.scheme !== 'https') invalid(`${w}: http.scheme must be http or https`);
    probe = {
      type: 'HTTP',
      port: http.port,
      ...(http.path !== undefined ? { path: http.path } : {}),
      ...(http.scheme ? { scheme: http.scheme as 'http' | 'https' } : {}),
      ...(http.statuses?.length ? { statuses: http.statuses } : {}),
    };
  } else if (h.type === 'TCP') {
    const tcp = h.tcp ?? invalid(`${w}: type TCP needs tcp`);
    ipv4(tcp.protocol, w);
    probe = { type: 'TCP', port: tcp.port };
  } else return invalid(`${w}: type must be COMMAND, HTTP or TCP`);
  return checked(
    HealthCheck,
    {
      probe,
      ...timing(h),
      ...(h.grace_period_seconds !== undefined ? { gracePeriodSeconds: h.grace_period_seconds } : {}),
      ...(h.consecutive_failures !== undefined ? { consecutiveFailures: h.consecutive_failures } : {}),
    },
    w,
  );
}

function checkOf(c: MesosCheckInfo, where: string): Check {
  const w = `${where} check`;
  let probe: Check['probe'];
  if (c.type === 'COMMAND') probe = { type: 'COMMAND', command: commandOf(c.command?.command, w) };
  else if (c.type === 'HTTP') {
    const http = c.http ?? invalid(`${w}: type HTTP needs http`);
    probe = { type: 'HTTP', port: http.port, ...(http.path !== undefined ? { path: http.path } : {}) };
  } else if (c.type === 'TCP') probe = { type: 'TCP', port: (c.tcp ?? invalid(`${w}: type TCP needs tcp`)).port };
  else return invalid(`${w}: type must be COMMAND, HTTP or TCP`);
  return checked(CheckSchema, { probe, ...timing(c) }, w);
}

/** A TaskInfo's checks as a TaskSpec's fields. */
export function checksOf(
  t: { health_check?: MesosHealthCheck; check?: MesosCheckInfo },
  where: string,
): Pick<TaskSpec, 'healthCheck' | 'check'> {
  return {
    ...(t.health_check ? { healthCheck: healthCheckOf(t.health_check, where) } : {}),
    ...(t.check ? { check: checkOf(t.check, where) } : {}),
  };
}

/** A general check's result as Mesos's CheckStatusInfo (the part of its type, empty until a result is known). */
export function mesosCheckStatus(c: CheckStatus): Record<string, unknown> {
  switch (c.type) {
    case 'COMMAND':
      return { type: 'COMMAND', command: c.exitCode !== undefined ? { exit_code: c.exitCode } : {} };
    case 'HTTP':
      return { type: 'HTTP', http: c.statusCode !== undefined ? { status_code: c.statusCode } : {} };
    case 'TCP':
      return { type: 'TCP', tcp: c.succeeded !== undefined ? { succeeded: c.succeeded } : {} };
  }
}
