import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { Requires } from './permissions';
import { PrincipalKind } from './principal.entity';

/** Who makes a request: the principal behind the bearer token, and the request's id. */
export interface Actor {
  principalId: string | null;
  name: string;
  /** Null for the control plane itself. */
  kind: PrincipalKind | null;
  tokenId: string | null;
  requestId: string | null;
  /** When the token stops being valid (open sockets are closed then). */
  tokenExpiresAt?: Date | null;
  /**
   * A Mesos framework that did not authenticate (allowed by ARBITER_MESOS_ALLOW_ANONYMOUS): it
   * has no principal, so only ACL entries for principal type ANY match it.
   */
  anonymous?: boolean;
}

/** The actor of changes made by the control plane itself. */
export const SYSTEM_ACTOR: Actor = { principalId: null, name: 'system', kind: null, tokenId: null, requestId: null };

export interface AuthenticatedRequest {
  actor?: Actor;
  id?: string;
}

/**
 * A caller without credentials of the read-only Mesos endpoints (ARBITER_MESOS_READONLY_ANONYMOUS):
 * it reads as a VIEWER, and only ACL entries for principal type ANY match it.
 */
export const anonymousReader = (requestId: string | null): Actor => ({
  principalId: null,
  name: 'anonymous',
  kind: PrincipalKind.VIEWER,
  tokenId: null,
  requestId,
  anonymous: true,
});

/** The authenticated caller of the current request (set by AuthGuard). */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
  return req.actor ?? { ...SYSTEM_ACTOR, requestId: req.id ?? null };
});

/** Marks a controller or route as open (health, metrics): no bearer token needed. */
export const Public = () => Requires('public');
