import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';

/** Who makes a request: the principal behind the bearer token, and the request's id. */
export interface Actor {
  principalId: string | null;
  name: string;
  tokenId: string | null;
  requestId: string | null;
}

/** The actor of changes made by the control plane itself. */
export const SYSTEM_ACTOR: Actor = { principalId: null, name: 'system', tokenId: null, requestId: null };

export interface AuthenticatedRequest {
  actor?: Actor;
  id?: string;
}

/** The authenticated caller of the current request (set by AuthGuard). */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
  return req.actor ?? { ...SYSTEM_ACTOR, requestId: req.id ?? null };
});

export const IS_PUBLIC = 'arbiter:public';

/** Marks a controller or route as open (health, metrics): no bearer token needed. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
