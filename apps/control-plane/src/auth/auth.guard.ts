import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { type AuthenticatedRequest, IS_PUBLIC } from './auth.actor';
import { AuthService } from './auth.service';

/** Every route needs a bearer token unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    // pino-http sets the request id (a string here, see app/logging.ts).
    const id: unknown = req.id;
    req.actor = await this.auth.authenticate(req.headers.authorization, typeof id === 'string' ? id : null);
    return true;
  }
}
