import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ArbiterException } from '../errors/errors.exception';
import { anonymousReader, type AuthenticatedRequest } from './auth.actor';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { AuthErrorCode } from './auth.errors';
import { AuthService } from './auth.service';
import { ANONYMOUS_READ, kindMay, PERMISSION, type Permission } from './permissions';
import { RefusalLog } from './refusal-log';

/** Every route needs a bearer token unless it is public, and the permission it declares (see permissions.ts). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly access: RefusalLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION, [ctx.getHandler(), ctx.getClass()]);
    if (permission === 'public') return true;
    const req = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    // pino-http sets the request id (a string here, see app/logging.ts).
    const id: unknown = req.id;
    if (
      !req.headers.authorization &&
      this.config.mesosReadonlyAnonymous &&
      this.reflector.getAllAndOverride<boolean | undefined>(ANONYMOUS_READ, [ctx.getHandler(), ctx.getClass()])
    ) {
      req.actor = anonymousReader(typeof id === 'string' ? id : null);
      return true;
    }
    const actor = await this.auth.authenticate(req.headers.authorization, typeof id === 'string' ? id : null);
    req.actor = actor;
    if (permission && actor.kind && kindMay(actor.kind, permission)) return true;
    const what = `${req.method} ${req.route ? String((req.route as { path: unknown }).path) : req.path}`;
    await this.access.denied(actor, { what, reason: permission ? `needs '${permission}'` : 'the route declares no permission' });
    throw new ArbiterException(
      AuthErrorCode.FORBIDDEN,
      permission
        ? `principal '${actor.name}' (${actor.kind ?? 'system'}) may not call ${what}: it needs the '${permission}' permission`
        : `${what} declares no permission, so nobody may call it`,
      { principal: actor.name, kind: actor.kind, required: permission ?? null },
    );
  }
}
