/**
 * Operations only the leader can carry out (they act on live sessions: kill a task, tear a
 * framework down) are marked `@OnLeader()`. A standby authenticates and authorizes the request
 * as usual, then hands it to the leader over HTTP with the caller's own credentials and answers
 * with the leader's answer, so every replica serves the whole API. With no leader to hand it
 * to, the answer is 503 NO_LEADER and nothing has changed.
 */
import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { from, type Observable } from 'rxjs';
import type * as Undici from 'undici';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { allErrorCodes } from '../errors/errors.mapping';
import { Leadership } from './leadership.service';

const ON_LEADER = 'arbiter:on-leader';
/** Marks a request a standby handed on, so it is never handed on twice. */
export const FORWARDED_HEADER = 'x-arbiter-forwarded-by';
/** How long a standby waits for the leader's answer. */
const FORWARD_TIMEOUT_MS = 30_000;

/** undici, loaded by the first request a standby hands on (a replica that never does loads none of its 110 modules). */
const loadUndici = (): Promise<typeof Undici> => import('undici');

/** The route runs on the leader; a standby hands it over. */
export const OnLeader = (): MethodDecorator => SetMetadata(ON_LEADER, true);

@Injectable()
export class OnLeaderInterceptor implements NestInterceptor {
  private dispatcher?: Undici.Dispatcher;

  constructor(
    private readonly reflector: Reflector,
    private readonly leadership: Leadership,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.leadership.isLeader || !this.reflector.get<boolean | undefined>(ON_LEADER, ctx.getHandler())) return next.handle();
    const http = ctx.switchToHttp();
    return from(this.forward(http.getRequest<Request>()));
  }

  private async forward(req: Request): Promise<unknown> {
    const leader = this.leadership.leaderUrl;
    const noLeader = (why: string) =>
      new ArbiterException(CommonErrorCode.NO_LEADER, `this control plane is a standby and ${why}; try again in a few seconds`, {
        leader,
      });
    if (req.headers[FORWARDED_HEADER]) throw noLeader('the replica that sent the request here took it for the leader');
    if (!leader || leader === this.leadership.url) throw noLeader('no leader is known');
    const headers: Record<string, string> = { [FORWARDED_HEADER]: this.leadership.url, accept: 'application/json' };
    for (const name of ['authorization', 'cookie', 'content-type'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    const hasBody = req.body !== undefined && !['GET', 'HEAD'].includes(req.method);
    let answer: Undici.Dispatcher.ResponseData;
    try {
      const undici = await loadUndici();
      answer = await undici.request(new URL(req.originalUrl, leader), {
        method: req.method,
        headers,
        body: hasBody ? JSON.stringify(req.body) : undefined,
        headersTimeout: FORWARD_TIMEOUT_MS,
        bodyTimeout: FORWARD_TIMEOUT_MS,
        dispatcher: this.tlsDispatcher(undici),
      });
    } catch (err) {
      throw noLeader(`the leader at ${leader} did not answer (${(err as Error).message})`);
    }
    const text = await answer.body.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw noLeader(`the leader at ${leader} answered ${answer.statusCode} with a body that is not JSON`);
    }
    if (answer.statusCode < 300) return body;
    // The leader's refusal, as it gave it (same code, so the same status).
    const error = body as { code?: string; message?: string; details?: Record<string, unknown> | null } | undefined;
    const known = allErrorCodes().find((c) => c.code === error?.code);
    if (known) throw new ArbiterException(known.code, error?.message ?? known.code, error?.details ?? null);
    throw noLeader(`the leader at ${leader} answered ${answer.statusCode}`);
  }

  /** Under TLS, the leader's certificate is trusted like this replica's own (or ARBITER_CA_FILE's CA). */
  private tlsDispatcher(undici: typeof Undici): Undici.Dispatcher | undefined {
    if (!this.config.tlsCert) return undefined;
    const caFile = process.env.ARBITER_CA_FILE;
    const ca = caFile ? fs.readFileSync(caFile, 'utf8') : this.config.tlsCert.pem;
    return (this.dispatcher ??= new undici.Agent({ connect: { ca: [...tls.rootCertificates, ca] } }));
  }
}
