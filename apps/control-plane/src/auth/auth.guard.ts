import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ArbiterException } from '../errors/errors.exception';
import type { AuthenticatedRequest } from './auth.actor';
import { AuthErrorCode } from './auth.errors';
import { AuthService } from './auth.service';
import { kindMay, PERMISSION, type Permission } from './permissions';
import { RefusalLog } from './refusal-log';

/** Every route needs a bearer token unless it is public, and the permission it declares (see permissions.ts). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly access: RefusalLog,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION, [ctx.getHandler(), ctx.getClass()]);
    if (permission === 'public') return true;
    const req = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    // pino-http sets the request id (a string here, see app/logging.ts).
    const id: unknown = req.id;
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
