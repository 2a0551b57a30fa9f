/**
 * The cluster's ACLs (Mesos's local authorizer, acls.rules.ts): kept in the database, applied
 * from ARBITER_ACLS at start when it is set, replaced through PUT /api/v1/acls. Every check of
 * an operator call or a protocol call goes through `authorize`; ADMIN principals and the
 * control plane itself are not subject to ACLs.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AccessLog } from '../audit/access-log';
import { AuditService } from '../audit/audit.service';
import { type Actor, SYSTEM_ACTOR } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { PrincipalKind } from '../auth/principal.entity';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { Database, lockDomain, LockDomain } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import {
  type AclAction,
  ACL_OBJECTS,
  type Acls,
  type Scope,
  aclsToDocument,
  isAuthorized,
  parseAcls,
  PERMISSIVE,
  roleValueProblems,
  scopeOf,
  hostScopeOf,
  type HostScope,
} from '../config/acls.rules';
import { AclsRepository } from './acls.repository';

export interface AclsView {
  document: Record<string, unknown>;
  updatedAt: Date | null;
  updatedBy: string | null;
}

@Injectable()
export class AclsService implements OnModuleInit {
  private acls: Acls = PERMISSIVE;

  constructor(
    private readonly db: Database,
    private readonly repo: AclsRepository,
    private readonly audit: AuditService,
    private readonly access: AccessLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.acls)
      await this.replace(this.config.acls.document, { ...SYSTEM_ACTOR, name: `system (ARBITER_ACLS ${this.config.acls.file})` });
    else await this.reload();
  }

  /** Reads the stored ACLs again (another replica may have changed them). */
  async reload(): Promise<void> {
    const row = await this.repo.get(this.db.manager);
    const parsed = row ? parseAcls(row.document) : null;
    this.acls = parsed?.ok ? parsed.acls : PERMISSIVE;
  }

  async get(): Promise<AclsView> {
    const row = await this.repo.get(this.db.manager);
    return { document: row?.document ?? aclsToDocument(PERMISSIVE), updatedAt: row?.updatedAt ?? null, updatedBy: row?.updatedBy ?? null };
  }

  /** Validates and stores a whole ACL document, with its audit entry. */
  async replace(document: unknown, actor: Actor, now = new Date()): Promise<AclsView> {
    const parsed = parseAcls(document);
    const errors = parsed.ok ? roleValueProblems(parsed.acls) : parsed.errors;
    if (!parsed.ok || errors.length)
      throw new ArbiterException(AuthErrorCode.ACLS_INVALID, `invalid ACLs: ${errors.slice(0, 5).join('; ')}`, { errors });
    const normalised = aclsToDocument(parsed.acls);
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const before = await this.repo.get(tx);
      await this.repo.save(tx, normalised, actor.name, now);
      await this.audit.record(
        tx,
        actor,
        { action: 'acls.update', targetType: 'acls', targetId: null, before: before?.document ?? null, after: normalised },
        now,
      );
    });
    this.acls = parsed.acls;
    return { document: normalised, updatedAt: now, updatedBy: actor.name };
  }

  /** Whether the actor may do `action` on `object` (ADMIN and the control plane always may). */
  allows(actor: Actor, action: AclAction, object: string): boolean {
    // An anonymous caller has no principal: '' matches no ACL value, only principal type ANY.
    return (
      actor.kind === null ||
      actor.kind === PrincipalKind.ADMIN ||
      isAuthorized(this.acls, action, actor.anonymous ? '' : actor.name, object)
    );
  }

  /** Throws FORBIDDEN (and records the refusal) unless the actor may do `action` on every object. */
  async authorize(actor: Actor, action: AclAction, objects: string | string[], what: string = action): Promise<void> {
    const refused = (Array.isArray(objects) ? objects : [objects]).find((o) => !this.allows(actor, action, o));
    if (refused === undefined) return;
    const object = ACL_OBJECTS[action].replace(/s$/, '');
    await this.access.denied(actor, { what, reason: `ACL ${action} refuses ${object} '${refused}'`, targetType: 'acl', targetId: action });
    throw new ArbiterException(
      AuthErrorCode.FORBIDDEN,
      `principal '${actor.name}' may not ${what}: the ACL ${action} refuses ${object} '${refused}'`,
      {
        principal: actor.name,
        action,
        object: refused,
      },
    );
  }

  /** For filtering lists: the values of the action's object the actor may see (see scopeOf). */
  scope(actor: Actor, action: AclAction): Scope {
    if (actor.kind === null || actor.kind === PrincipalKind.ADMIN) return { except: [] };
    // An anonymous caller has no principal: only principal type ANY matches it, as in `allows`.
    return scopeOf(this.acls, action, actor.anonymous ? '' : actor.name);
  }

  /** For filtering lists by hostname in SQL (see hostScopeOf); everything for an admin. */
  hostScope(actor: Actor, action: 'view_agents'): HostScope {
    if (actor.kind === null || actor.kind === PrincipalKind.ADMIN) return { rules: [], rest: true };
    return hostScopeOf(this.acls, action, actor.anonymous ? '' : actor.name);
  }
}
