/**
 * Principals and their tokens (admin only): create, list and disable principals; issue tokens
 * (the secret shown once, stored as its SHA-256), list them, revoke them. A disabled principal's
 * and a revoked token's open sockets are closed at once (see Realtime). Every change is audited.
 */
import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { Database, lockDomain, LockDomain } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import type { Actor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { AuthRepository } from '../auth/auth.repository';
import { AuthService, generateToken, hashToken } from '../auth/auth.service';
import type { ApiTokenEntity } from '../auth/api-token.entity';
import type { PrincipalEntity } from '../auth/principal.entity';
import type { CreatePrincipalDto, IssuedTokenDto, PrincipalDto, TokenDto } from './principals.dto';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** How long a dashboard session lives at most (twelve hours: a working day, then sign in again). */
export const SESSION_TTL_SECONDS = 12 * 3600;
const SESSION_TOKEN_NAME = 'dashboard session';

function toPrincipalDto(p: PrincipalEntity, liveTokens: number): PrincipalDto {
  return {
    name: p.name,
    kind: p.kind,
    description: p.description,
    createdAt: p.createdAt.toISOString(),
    disabledAt: iso(p.disabledAt),
    liveTokens,
  };
}

function toTokenDto(t: ApiTokenEntity, principal: string): TokenDto {
  return {
    id: t.id,
    principal,
    name: t.name,
    createdAt: t.createdAt.toISOString(),
    expiresAt: iso(t.expiresAt),
    lastUsedAt: iso(t.lastUsedAt),
    revokedAt: iso(t.revokedAt),
  };
}

@Injectable()
export class PrincipalsService {
  constructor(
    private readonly db: Database,
    private readonly repo: AuthRepository,
    private readonly auth: AuthService,
    private readonly audit: AuditService,
  ) {}

  async list(now = new Date()): Promise<PrincipalDto[]> {
    return (await this.repo.listPrincipals(this.db.manager, now)).map((p) => toPrincipalDto(p, p.liveTokens));
  }

  async create(body: CreatePrincipalDto, actor: Actor, now = new Date()): Promise<PrincipalDto> {
    return this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      if (await this.repo.findPrincipal(tx, body.name))
        throw new ArbiterException(AuthErrorCode.PRINCIPAL_EXISTS, `a principal named '${body.name}' exists already`, { name: body.name });
      const p = await this.repo.createPrincipal(tx, body.name, body.kind, now, body.description ?? '');
      const dto = toPrincipalDto(p, 0);
      await this.audit.record(
        tx,
        actor,
        { action: 'principal.create', targetType: 'principal', targetId: p.name, before: null, after: dto },
        now,
      );
      return dto;
    });
  }

  async disable(name: string, actor: Actor, now = new Date()): Promise<PrincipalDto> {
    const dto = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const p = await this.principal(tx, name);
      if (p.disabledAt) return toPrincipalDto(p, 0);
      if (p.id === actor.principalId)
        throw new ArbiterException(AuthErrorCode.FORBIDDEN, 'a principal cannot disable itself (ask another admin)', { name });
      const before = toPrincipalDto(p, 0);
      await this.repo.disablePrincipal(tx, p.id, now);
      p.disabledAt = now;
      const after = toPrincipalDto(p, 0);
      await this.audit.record(tx, actor, { action: 'principal.disable', targetType: 'principal', targetId: name, before, after }, now);
      return { dto: after, id: p.id };
    });
    if ('id' in dto) {
      this.auth.revoked({ principalId: dto.id });
      return dto.dto;
    }
    return dto;
  }

  async tokens(name: string): Promise<TokenDto[]> {
    const p = await this.principal(this.db.manager, name);
    return (await this.repo.tokensOf(this.db.manager, p.id)).map((t) => toTokenDto(t, p.name));
  }

  async issue(name: string, body: { name?: string; ttlSeconds?: number }, actor: Actor, now = new Date()): Promise<IssuedTokenDto> {
    return this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const p = await this.principal(tx, name);
      if (p.disabledAt) throw new ArbiterException(AuthErrorCode.PRINCIPAL_DISABLED, `principal '${name}' is disabled`, { name });
      const token = generateToken();
      const expiresAt = body.ttlSeconds ? new Date(now.getTime() + body.ttlSeconds * 1000) : null;
      const row = await this.repo.createToken(tx, p.id, body.name ?? `issued by ${actor.name}`, hashToken(token), now, expiresAt);
      const dto = toTokenDto(row, p.name);
      await this.audit.record(tx, actor, { action: 'token.issue', targetType: 'token', targetId: row.id, before: null, after: dto }, now);
      return Object.assign(dto, { token });
    });
  }

  /**
   * A dashboard session: a token of the caller's own principal that lives at most
   * SESSION_TTL_SECONDS and never past the token that asked for it. The dashboard keeps only this
   * token (in an httpOnly cookie), never the one the operator signed in with, and revokes it at
   * sign-out.
   */
  async startSession(actor: Actor, now = new Date()): Promise<IssuedTokenDto> {
    if (!actor.principalId) throw new ArbiterException(AuthErrorCode.FORBIDDEN, 'only a principal can start a session');
    const principalId = actor.principalId;
    const cap = now.getTime() + SESSION_TTL_SECONDS * 1000;
    const expiresAt = new Date(actor.tokenExpiresAt ? Math.min(cap, actor.tokenExpiresAt.getTime()) : cap);
    return this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const token = generateToken();
      const row = await this.repo.createToken(tx, principalId, SESSION_TOKEN_NAME, hashToken(token), now, expiresAt);
      const dto = toTokenDto(row, actor.name);
      await this.audit.record(tx, actor, { action: 'token.issue', targetType: 'token', targetId: row.id, before: null, after: dto }, now);
      return Object.assign(dto, { token });
    });
  }

  /** Ends the session the request is made with: its token stops working at once. */
  async endSession(actor: Actor, now = new Date()): Promise<TokenDto> {
    const tokenId = actor.tokenId;
    const t = tokenId ? await this.repo.findToken(this.db.manager, tokenId) : null;
    if (!tokenId || t?.name !== SESSION_TOKEN_NAME)
      throw new ArbiterException(
        AuthErrorCode.NOT_A_SESSION,
        'this token is not a session (POST /api/v1/sessions starts one); an admin revokes other tokens with DELETE /api/v1/tokens/{id}',
      );
    return this.revoke(tokenId, actor, now);
  }

  async revoke(id: string, actor: Actor, now = new Date()): Promise<TokenDto> {
    const dto = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const t = /^[0-9a-f-]{36}$/i.test(id) ? await this.repo.findToken(tx, id) : null;
      if (!t) throw new ArbiterException(AuthErrorCode.TOKEN_NOT_FOUND, `no token with id '${id}'`, { id });
      const owner = await this.repo.findPrincipalById(tx, t.principalId);
      const before = toTokenDto(t, owner?.name ?? t.principalId);
      if (t.revokedAt) return before;
      await this.repo.revokeToken(tx, id, now);
      t.revokedAt = now;
      const after = toTokenDto(t, before.principal);
      await this.audit.record(tx, actor, { action: 'token.revoke', targetType: 'token', targetId: id, before, after }, now);
      return after;
    });
    this.auth.revoked({ tokenId: id });
    return dto;
  }

  private async principal(tx: Parameters<AuthRepository['findPrincipal']>[0], name: string): Promise<PrincipalEntity> {
    const p = await this.repo.findPrincipal(tx, name);
    if (!p) throw new ArbiterException(AuthErrorCode.PRINCIPAL_NOT_FOUND, `no principal named '${name}'`, { name });
    return p;
  }
}
