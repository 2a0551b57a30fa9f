/**
 * Read routes marked `@Coalesced()` answer concurrent identical requests with one computation:
 * a request that arrives while the same caller's same read (method, URL with its query, and
 * principal, so view ACLs cannot leak) is being computed waits for that answer instead of
 * computing it again. Nothing is kept once the answer is out, so no answer is older than the
 * request it serves. Under many dashboards polling the same pages this turns N identical reads
 * of a large cluster into one (Mesos's master batches its read-only state requests the same way).
 */
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';

const COALESCED = 'arbiter:coalesced';

/** The route's concurrent identical reads share one computation. */
export const Coalesced = (): MethodDecorator => SetMetadata(COALESCED, true);

@Injectable()
export class CoalesceInterceptor implements NestInterceptor {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.reflector.get<boolean | undefined>(COALESCED, ctx.getHandler())) return next.handle();
    // `actor` is the auth guard's (auth/auth.actor.ts); this folder names no module.
    const req = ctx.switchToHttp().getRequest<Request & { actor?: { principalId: string | null } }>();
    const key = `${req.actor?.principalId ?? 'anonymous'}\u0000${req.method}\u0000${req.originalUrl}`;
    let answer = this.inFlight.get(key);
    if (!answer) {
      answer = lastValueFrom(next.handle()).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, answer);
    }
    return from(answer);
  }
}
