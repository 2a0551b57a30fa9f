/**
 * Turns every failure into the API's error body {statusCode, code, message, details}.
 * ArbiterExceptions carry their code; the framework's own errors (unknown route, malformed
 * JSON, oversized body) get theirs here; anything else is logged with the request id and
 * answered as INTERNAL_ERROR, so no request ever sees a stack trace.
 */
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ResourceParseError } from '@arbiter/allocator';
import { databaseErrorCode, isDatabaseUnavailable } from '../database/database.service';
import { isNotLeader } from '../database/master-database';
import { CommonErrorCode } from './errors.codes';
import { ArbiterException } from './errors.exception';
import { type ErrorCode, httpStatusOf } from './errors.mapping';

interface ErrorBody {
  statusCode: number;
  code: ErrorCode;
  message: string;
  details: Record<string, unknown> | null;
}

function bodyParserError(err: unknown): ArbiterException | undefined {
  const e = err as { type?: string; status?: number; message?: string; limit?: number } | null | undefined;
  switch (e?.type) {
    case 'entity.parse.failed':
      return new ArbiterException(CommonErrorCode.MALFORMED_JSON, `the request body is not valid JSON: ${e.message}`);
    case 'entity.too.large':
      return new ArbiterException(CommonErrorCode.PAYLOAD_TOO_LARGE, `the request body is larger than ${e.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ArbiterException(CommonErrorCode.UNSUPPORTED_MEDIA_TYPE, `${e.message}; send UTF-8 JSON`);
    default:
      return undefined;
  }
}

export function toArbiterException(err: unknown, req?: Request): ArbiterException | undefined {
  if (err instanceof ArbiterException) return err;
  // Resources a DTO let through but the allocator's algebra refuses are still bad input.
  if (err instanceof ResourceParseError) return new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${err.message}`);
  const parsed = bodyParserError(err) ?? bodyParserError((err as { cause?: unknown } | null | undefined)?.cause);
  if (parsed) return parsed;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) {
      return new ArbiterException(
        CommonErrorCode.ROUTE_NOT_FOUND,
        `no route ${req?.method ?? ''} ${req?.path ?? ''}; see /api/docs for the API`.replace('  ', ' '),
      );
    }
    if (status === 413) return new ArbiterException(CommonErrorCode.PAYLOAD_TOO_LARGE, 'the request body is too large');
    if (status === 415) return new ArbiterException(CommonErrorCode.UNSUPPORTED_MEDIA_TYPE, 'send the body as application/json');
    if (status === 400) return new ArbiterException(CommonErrorCode.VALIDATION_FAILED, err.message);
    return undefined;
  }
  // The master's write of a term that ended (an operation that runs on the leader, in flight as it stepped down).
  if (isNotLeader(err))
    return new ArbiterException(CommonErrorCode.NO_LEADER, 'this control plane is no longer the leader; try again in a few seconds');
  if (isDatabaseUnavailable(err))
    return new ArbiterException(CommonErrorCode.DATABASE_UNAVAILABLE, 'the database is unavailable; retry shortly');
  const sqlState = databaseErrorCode(err);
  if (sqlState === '40001' || sqlState === '40P01')
    return new ArbiterException(CommonErrorCode.CONCURRENT_UPDATE, 'a concurrent change touched the same data; retry the request');
  return undefined;
}

/** The body length a request declares (Content-Length), or undefined when it declares none. */
export function declaredLength(req: Request): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

/**
 * A request answered before its body was read (refused by the guard, or as too large): its
 * connection is closed after the answer, so the body is never read, not even to discard it.
 */
export function closeIfUnread(req: Request | undefined, res: Response): void {
  if (!req || req.complete || res.headersSent) return;
  if ((declaredLength(req) ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined) res.setHeader('Connection', 'close');
}

@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(err: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<(Request & { id?: string }) | undefined>();
    const res = ctx.getResponse<Response>();
    const known = toArbiterException(err, req);
    let body: ErrorBody;
    if (known) {
      body = { statusCode: httpStatusOf(known.code), code: known.code, message: known.message, details: known.details };
    } else {
      this.logger.error({ err, requestId: req?.id, method: req?.method, path: req?.path }, 'unhandled error');
      body = {
        statusCode: 500,
        code: CommonErrorCode.INTERNAL_ERROR,
        message: `internal error; quote request id ${req?.id ?? 'unknown'} when reporting it`,
        details: { requestId: req?.id ?? null },
      };
    }
    if (res.headersSent) return;
    closeIfUnread(req, res);
    // The auth guard's refusals (auth/auth.errors.ts) say how to authenticate.
    if (body.code === 'AUTH_TOKEN_MISSING' || body.code === 'AUTH_TOKEN_INVALID')
      res.setHeader('WWW-Authenticate', 'Bearer realm="arbiter"');
    res.status(body.statusCode).json(body);
  }
}
