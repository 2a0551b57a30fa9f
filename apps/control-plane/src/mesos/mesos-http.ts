/**
 * The HTTP side of Mesos's scheduler API: a call's refusal as Mesos answers it (status and
 * `{ code, message }`), and Mesos's MasterInfo of this control plane.
 */
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import type { Request, Response } from 'express';
import { closeIfUnread, toArbiterException } from '../errors/errors.filter';
import { httpStatusOf } from '../errors/errors.mapping';
import { asProtocolError } from '../kernel/protocol-error';

/** An HTTP answer to a call: its status and `{ code, message }`. */
export class MesosHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The HTTP status of a protocol error, as a Mesos master answers such a call. */
function statusOf(code: string): number {
  switch (code) {
    case PROTOCOL_ERRORS.FORBIDDEN:
    case PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH:
    case PROTOCOL_ERRORS.TOO_MANY_FRAMEWORKS:
      return 403;
    case PROTOCOL_ERRORS.DATABASE_UNAVAILABLE:
    case PROTOCOL_ERRORS.NOT_LEADER:
      return 503;
    default:
      return 400;
  }
}

/** A failed call as Mesos's answer, or undefined for a failure of the control plane's own (a 500). */
export function httpErrorOf(err: unknown): MesosHttpError | undefined {
  if (err instanceof MesosHttpError) return err;
  const p = asProtocolError(err);
  if (p) return new MesosHttpError(statusOf(p.code), p.code, p.message, {}, p.details);
  const known = toArbiterException(err);
  if (known) {
    const status = httpStatusOf(known.code);
    const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Basic realm="arbiter"' } : {};
    return new MesosHttpError(status, known.code, known.message, headers);
  }
  return undefined;
}

/** Answers a call with its refusal. */
export function answerWith(res: Response, e: MesosHttpError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
  closeIfUnread(res.req, res);
  res.status(e.status).json({ code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) });
}

/** Mesos's MasterInfo for this control plane: its advertised address (`url`), and the IPv4 address the framework reached. */
export function masterInfo(url: string, req: Request): Record<string, unknown> {
  const advertised = new URL(url);
  const port = Number(advertised.port || (advertised.protocol === 'https:' ? 443 : 80));
  const local = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
  const octets = /^\d+\.\d+\.\d+\.\d+$/.test(local) ? local.split('.').map(Number) : [];
  // MasterInfo.ip is the IPv4 address in network order, as a number.
  const ip = octets.length === 4 ? octets.reduce((n, o, i) => n + o * 256 ** i, 0) : 0;
  return {
    id: url,
    ip,
    port,
    hostname: advertised.hostname,
    version: '1.11.0',
    address: { hostname: advertised.hostname, ...(octets.length ? { ip: local } : {}), port },
  };
}
