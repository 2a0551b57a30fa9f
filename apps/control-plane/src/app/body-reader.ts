/**
 * Request bodies are read only once the caller is known. The auth guard decides from the
 * headers alone (Bearer or Basic); then `BodyInterceptor` reads and parses the body, with a
 * limit that depends on who sent it: `bodyLimit` for an authenticated caller, the much smaller
 * `unauthenticatedBodyLimit` for public routes. A request refused before its body is read (401,
 * 403, 404, a declared Content-Length over the limit: 413 PAYLOAD_TOO_LARGE) is answered without
 * reading it and its connection is closed (errors/errors.filter.ts), so credentials-less floods
 * of large bodies cost neither parsing nor buffering. Routes that read their own body after
 * authenticating (Mesos's scheduler API) are marked `@ReadsOwnBody()` and call `readBody`.
 */
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as express from 'express';
import type { Observable } from 'rxjs';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { declaredLength } from '../errors/errors.filter';
import { bodyProblem } from './input-gate';

const READS_OWN_BODY = 'arbiter:reads-own-body';

/** The route reads its body itself, once it has authenticated the caller (`readBody`). */
export const ReadsOwnBody = (): MethodDecorator => SetMetadata(READS_OWN_BODY, true);

const JSON_TYPES = ['application/json', 'application/*+json'];
/** Mesos's scheduler API takes protobuf too (mesos/mesos-protobuf.ts). */
const RAW_TYPES = ['application/x-protobuf'];

/** A failure to read a body: what the client is answered (an ArbiterException or a body-parser error). */
export class BodyReadError extends Error {
  constructor(readonly reason: unknown) {
    super('the request body could not be read');
  }
}

function tooLarge(limit: number, authenticated: boolean): ArbiterException {
  return new ArbiterException(
    CommonErrorCode.PAYLOAD_TOO_LARGE,
    authenticated
      ? `the request body is larger than ${limit} bytes`
      : `the request body is larger than ${limit} bytes, what a request without valid credentials may send`,
    { limit },
  );
}

/** Parsers by limit: made once per limit, not per request. */
const parsers = new Map<number, { json: RequestHandler; raw: RequestHandler }>();

function parsersFor(limit: number): { json: RequestHandler; raw: RequestHandler } {
  let found = parsers.get(limit);
  if (!found) {
    found = { json: express.json({ limit, strict: true, type: JSON_TYPES }), raw: express.raw({ limit, type: RAW_TYPES }) };
    parsers.set(limit, found);
  }
  return found;
}

function run(parser: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    parser(req, res, (err?: unknown) => (err ? reject(new BodyReadError(err)) : resolve()));
  });
}

/**
 * Reads and parses the request's body (JSON; protobuf too where `raw` is set) within `limit`
 * bytes, then checks the JSON against the input gate. Rejects with a BodyReadError.
 */
export async function readBody(
  req: Request,
  res: Response,
  limit: number,
  options: { authenticated: boolean; raw?: boolean },
): Promise<void> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) throw new BodyReadError(tooLarge(limit, options.authenticated));
  const { json, raw } = parsersFor(limit);
  await run(json, req, res);
  if (options.raw) await run(raw, req, res);
  const problem = bodyProblem(req.body);
  if (problem) throw new BodyReadError(problem);
}

/** Before routing: a declared body larger than any caller may send is refused 413, unread. */
export function declaredBodyLimit(config: Pick<AppConfig, 'bodyLimit'>): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const declared = declaredLength(req);
    if (declared !== undefined && declared > config.bodyLimit) next(tooLarge(config.bodyLimit, true));
    else next();
  };
}

/** Reads the body of every route after the guard, with the caller's limit. */
@Injectable()
export class BodyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async intercept(ctx: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (ctx.getType() !== 'http' || this.reflector.get<boolean | undefined>(READS_OWN_BODY, ctx.getHandler())) return next.handle();
    const http = ctx.switchToHttp();
    // `actor` is the auth guard's (auth/auth.actor.ts); this folder names no module.
    const req = http.getRequest<Request & { actor?: unknown }>();
    const authenticated = req.actor !== undefined;
    try {
      await readBody(req, http.getResponse<Response>(), authenticated ? this.config.bodyLimit : this.config.unauthenticatedBodyLimit, {
        authenticated,
      });
    } catch (err) {
      throw err instanceof BodyReadError ? err.reason : err;
    }
    return next.handle();
  }
}
