import { Injectable } from '@nestjs/common';
import { type EntityManager, IsNull } from 'typeorm';
import { ApiTokenEntity } from './api-token.entity';
import { PrincipalEntity, PrincipalKind } from './principal.entity';

export interface TokenOwner {
  tokenId: string;
  principalId: string;
  name: string;
  kind: PrincipalKind;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
}

@Injectable()
export class AuthRepository {
  /** The live token with this hash and its enabled principal. */
  async findLiveToken(tx: EntityManager, tokenHash: string, now: Date): Promise<TokenOwner | null> {
    // Every request reads it: plain SQL, without the query builder's work per call.
    const rows: Array<{
      token_id: string;
      principal_id: string;
      name: string;
      kind: PrincipalKind;
      last_used_at: Date | null;
      expires_at: Date | null;
    }> = await tx.query(
      `SELECT t.id AS token_id, p.id AS principal_id, p.name, p.kind, t.last_used_at, t.expires_at
         FROM api_tokens t JOIN principals p ON p.id = t.principal_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2) AND p.disabled_at IS NULL`,
      [tokenHash, now],
    );
    const row = rows.at(0);
    return row
      ? {
          tokenId: row.token_id,
          principalId: row.principal_id,
          name: row.name,
          kind: row.kind,
          lastUsedAt: row.last_used_at,
          expiresAt: row.expires_at,
        }
      : null;
  }

  async touchToken(tx: EntityManager, tokenId: string, now: Date): Promise<void> {
    await tx.update(ApiTokenEntity, { id: tokenId }, { lastUsedAt: now });
  }

  async listPrincipals(tx: EntityManager, now: Date): Promise<Array<PrincipalEntity & { liveTokens: number }>> {
    const rows = await tx.find(PrincipalEntity, { order: { name: 'ASC' } });
    const counts = await tx
      .createQueryBuilder(ApiTokenEntity, 't')
      .select('t.principal_id', 'principal_id')
      .addSelect('COUNT(*)::int', 'n')
      .where('t.revoked_at IS NULL')
      .andWhere('(t.expires_at IS NULL OR t.expires_at > :now)', { now })
      .groupBy('t.principal_id')
      .getRawMany<{ principal_id: string; n: number }>();
    const byId = new Map(counts.map((c) => [c.principal_id, c.n]));
    return rows.map((p) => Object.assign(p, { liveTokens: byId.get(p.id) ?? 0 }));
  }

  async disablePrincipal(tx: EntityManager, id: string, now: Date): Promise<void> {
    await tx.update(PrincipalEntity, { id }, { disabledAt: now });
  }

  async tokensOf(tx: EntityManager, principalId: string): Promise<ApiTokenEntity[]> {
    return tx.find(ApiTokenEntity, { where: { principalId }, order: { createdAt: 'DESC' } });
  }

  async findToken(tx: EntityManager, id: string): Promise<ApiTokenEntity | null> {
    return tx.findOne(ApiTokenEntity, { where: { id } });
  }

  async revokeToken(tx: EntityManager, id: string, now: Date): Promise<void> {
    await tx.update(ApiTokenEntity, { id, revokedAt: IsNull() }, { revokedAt: now });
  }

  async findPrincipal(tx: EntityManager, name: string): Promise<PrincipalEntity | null> {
    return tx.findOne(PrincipalEntity, { where: { name } });
  }

  async findPrincipalById(tx: EntityManager, id: string): Promise<PrincipalEntity | null> {
    return tx.findOne(PrincipalEntity, { where: { id } });
  }

  async createPrincipal(tx: EntityManager, name: string, kind: PrincipalKind, now: Date, description = ''): Promise<PrincipalEntity> {
    return tx.save(tx.create(PrincipalEntity, { name, kind, description, createdAt: now, disabledAt: null }));
  }

  async tokenExists(tx: EntityManager, tokenHash: string): Promise<boolean> {
    return tx.exists(ApiTokenEntity, { where: { tokenHash } });
  }

  async countLiveTokens(tx: EntityManager, principalId: string): Promise<number> {
    return tx.count(ApiTokenEntity, { where: { principalId, revokedAt: IsNull() } });
  }

  async revokeTokens(tx: EntityManager, principalId: string, now: Date): Promise<void> {
    await tx.update(ApiTokenEntity, { principalId, revokedAt: IsNull() }, { revokedAt: now });
  }

  async createToken(
    tx: EntityManager,
    principalId: string,
    name: string,
    tokenHash: string,
    now: Date,
    expiresAt: Date | null = null,
  ): Promise<ApiTokenEntity> {
    return tx.save(
      tx.create(ApiTokenEntity, { principalId, name, tokenHash, createdAt: now, expiresAt, lastUsedAt: null, revokedAt: null }),
    );
  }
}
