/**
 * Bearer tokens: high-entropy random values, stored only as their SHA-256 (a slow password
 * hash buys nothing for 256 random bits and would cost every request). The first admin token
 * comes from ARBITER_ADMIN_TOKEN or is generated on first start and shown once.
 */
import * as crypto from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type Actor } from './auth.actor';
import { ArbiterException } from '../errors/errors.exception';
import { AuthErrorCode } from './auth.errors';
import { AuthRepository, type TokenOwner } from './auth.repository';
import { PrincipalKind } from './principal.entity';
import { Database, lockDomain, LockDomain } from '../database/database.service';

const ADMIN_PRINCIPAL = 'admin';
/** How stale `last_used_at` may get before a request refreshes it (one write per minute at most). */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The token of an Authorization header: `Bearer <token>`, or `Basic` with `<principal>:<token>`
 * (how Mesos frameworks and tools send their principal and secret: the secret is a token of the
 * principal).
 */
function credentialsOf(header: string): { token: string; principal?: string } | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return { token: bearer[1] };
  const basic = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [principal, token] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return colon > 0 && /^\S+$/.test(token) ? { token, principal } : undefined;
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

export function generateToken(): string {
  return `arb_${crypto.randomBytes(32).toString('base64url')}`;
}

export interface AdminBootstrap {
  /** 'env': ARBITER_ADMIN_TOKEN is valid; 'generated': a new token (in `token`, shown once); 'existing': tokens exist already. */
  source: 'env' | 'generated' | 'existing';
  token?: string;
}

/** What stops being valid: one token, or every token of a principal. */
export type Revocation = { tokenId: string } | { principalId: string };

@Injectable()
export class AuthService {
  private readonly revocationListeners: Array<(r: Revocation) => void> = [];

  /** Called when tokens stop being valid (Realtime closes their sockets). */
  onRevoked(listener: (r: Revocation) => void): void {
    this.revocationListeners.push(listener);
  }

  /** Called once a revocation has committed (never inside its transaction). */
  revoked(r: Revocation): void {
    // A lookup under way may have read the token before it was revoked: later requests read again.
    this.lookups = new Map();
    for (const l of this.revocationListeners) l(r);
  }

  /**
   * Token lookups under way, by token hash: a request that arrives while its token is being
   * looked up shares that lookup (as `@Coalesced` reads share a computation) instead of making
   * its own. Nothing is kept once the lookup has answered, and a revocation here drops the
   * lookups under way, so a revoked token is refused to every request that arrives after the
   * revocation; on another control plane, within the time of one lookup (the one under way when
   * it committed). Under many concurrent requests on one token this turns a query per request
   * into a query per burst.
   */
  private lookups = new Map<string, Promise<TokenOwner | null>>();

  private lookup(tokenHash: string, now: Date): Promise<TokenOwner | null> {
    const lookups = this.lookups;
    let found = lookups.get(tokenHash);
    if (!found) {
      const mine = this.repo.findLiveToken(this.db.manager, tokenHash, now).finally(() => {
        if (lookups.get(tokenHash) === mine) lookups.delete(tokenHash);
      });
      lookups.set(tokenHash, (found = mine));
    }
    return found;
  }

  constructor(
    private readonly db: Database,
    private readonly repo: AuthRepository,
  ) {}

  /** The actor behind an Authorization header value, or an AUTH_* exception. */
  async authenticate(header: string | undefined, requestId: string | null, now = new Date()): Promise<Actor> {
    if (!header) {
      throw new ArbiterException(AuthErrorCode.AUTH_TOKEN_MISSING, "this API needs an 'Authorization: Bearer <token>' header");
    }
    const credentials = credentialsOf(header);
    if (!credentials)
      throw new ArbiterException(
        AuthErrorCode.AUTH_TOKEN_MISSING,
        "the Authorization header must read 'Bearer <token>' (or 'Basic' with <principal>:<token>, as Mesos clients send it)",
      );
    const owner = await this.lookup(hashToken(credentials.token), now);
    // A shared lookup was made at the first request's time: expiry is checked at this one's.
    if (!owner || (owner.expiresAt && owner.expiresAt <= now))
      throw new ArbiterException(AuthErrorCode.AUTH_TOKEN_INVALID, 'the bearer token is unknown, revoked or expired');
    if (credentials.principal !== undefined && credentials.principal !== owner.name)
      throw new ArbiterException(AuthErrorCode.AUTH_TOKEN_INVALID, `the token does not belong to principal '${credentials.principal}'`);
    if (!owner.lastUsedAt || now.getTime() - owner.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      // Marked at once, so that the requests sharing this lookup do not write it again.
      owner.lastUsedAt = now;
      await this.repo.touchToken(this.db.manager, owner.tokenId, now);
    }
    return {
      principalId: owner.principalId,
      name: owner.name,
      kind: owner.kind,
      tokenId: owner.tokenId,
      requestId,
      tokenExpiresAt: owner.expiresAt,
    };
  }

  /**
   * A fresh token for a service principal (created when missing), revoking its earlier tokens:
   * how `arbiter start` gives its local agent a credential without knowing the admin token.
   */
  async issueServiceToken(name: string, kind: PrincipalKind = PrincipalKind.AGENT, now = new Date()): Promise<string> {
    const { principalId, token } = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const principal = (await this.repo.findPrincipal(tx, name)) ?? (await this.repo.createPrincipal(tx, name, kind, now));
      await this.repo.revokeTokens(tx, principal.id, now);
      const fresh = generateToken();
      await this.repo.createToken(tx, principal.id, `issued at ${now.toISOString()}`, hashToken(fresh), now);
      return { principalId: principal.id, token: fresh };
    });
    // Once committed: a lookup made before the commit must not serve a request after it.
    this.revoked({ principalId });
    return token;
  }

  /** Makes sure an admin can log in: see AdminBootstrap. */
  async bootstrapAdmin(adminToken: string | undefined, now = new Date()): Promise<AdminBootstrap> {
    return this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.AUTH);
      const admin =
        (await this.repo.findPrincipal(tx, ADMIN_PRINCIPAL)) ??
        (await this.repo.createPrincipal(tx, ADMIN_PRINCIPAL, PrincipalKind.ADMIN, now));
      if (adminToken) {
        const hash = hashToken(adminToken);
        if (!(await this.repo.tokenExists(tx, hash))) await this.repo.createToken(tx, admin.id, 'ARBITER_ADMIN_TOKEN', hash, now);
        return { source: 'env' };
      }
      if ((await this.repo.countLiveTokens(tx, admin.id)) > 0) return { source: 'existing' };
      const token = generateToken();
      await this.repo.createToken(tx, admin.id, 'generated on first start', hashToken(token), now);
      return { source: 'generated', token };
    });
  }
}
