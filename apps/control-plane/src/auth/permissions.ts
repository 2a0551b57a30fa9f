/**
 * What each kind of principal may do through the REST API. Every route declares the permission
 * it needs with `@Requires(...)` (written into the OpenAPI document as `x-arbiter-permission`,
 * with the ACL action that further limits it as `x-arbiter-acl`); the guard refuses a caller
 * whose kind lacks it with 403 FORBIDDEN, and a route that declares nothing is refused to all.
 *
 *   public   no token needed (health, metrics)
 *   any      any valid token (whoami)
 *   read     ADMIN, OPERATOR, VIEWER
 *   operate  ADMIN, OPERATOR (the ACLs may narrow an operator further)
 *   admin    ADMIN only (principals, tokens, ACLs)
 *
 * FRAMEWORK and AGENT tokens are for the /frameworks and /agents sockets; on REST they may only
 * ask who they are.
 */
import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { AclAction } from '../config/acls.rules';
import { PrincipalKind } from './principal.entity';

export type Permission = 'public' | 'any' | 'read' | 'operate' | 'admin';

export const PERMISSION = 'arbiter:permission';

const GRANTS: Record<PrincipalKind, readonly Permission[]> = {
  [PrincipalKind.ADMIN]: ['public', 'any', 'read', 'operate', 'admin'],
  [PrincipalKind.OPERATOR]: ['public', 'any', 'read', 'operate'],
  [PrincipalKind.VIEWER]: ['public', 'any', 'read'],
  [PrincipalKind.FRAMEWORK]: ['public', 'any'],
  [PrincipalKind.AGENT]: ['public', 'any'],
};

export function kindMay(kind: PrincipalKind, permission: Permission): boolean {
  return GRANTS[kind].includes(permission);
}

/** Marks a read-only Mesos route: with ARBITER_MESOS_READONLY_ANONYMOUS on, a caller without credentials reads it as principal type ANY. */
export const ANONYMOUS_READ = 'arbiter:anonymous-read';
export const AnonymousReadable = (): MethodDecorator & ClassDecorator => SetMetadata(ANONYMOUS_READ, true);

/** The permission a route needs, and the ACL action that narrows it (documented in OpenAPI). */
export function Requires(permission: Permission, acl?: AclAction): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(PERMISSION, permission),
    ApiExtension('x-arbiter-permission', permission),
    ...(acl ? [ApiExtension('x-arbiter-acl', acl)] : []),
  );
}
