import { Injectable } from '@nestjs/common';
import { type EntityManager, IsNull } from 'typeorm';
import { ApiTokenEntity } from './api-token.entity';
import { PrincipalEntity, PrincipalKind } from './principal.entity';

export interface TokenOwner {
  tokenId: string;
  principalId: string;
  name: string;
  lastUsedAt: Date | null;
}

@Injectable()
export class AuthRepository {
  /** The live token with this hash and its enabled principal. */
  async findLiveToken(tx: EntityManager, tokenHash: string, now: Date): Promise<TokenOwner | null> {
    const row = await tx
      .createQueryBuilder(ApiTokenEntity, 't')
      .innerJoin(PrincipalEntity, 'p', 'p.id = t.principal_id')
      .select(['t.id AS token_id', 'p.id AS principal_id', 'p.name AS name', 't.last_used_at AS last_used_at'])
      .where('t.token_hash = :tokenHash', { tokenHash })
      .andWhere('t.revoked_at IS NULL')
      .andWhere('(t.expires_at IS NULL OR t.expires_at > :now)', { now })
      .andWhere('p.disabled_at IS NULL')
      .getRawOne<{ token_id: string; principal_id: string; name: string; last_used_at: Date | null }>();
    return row ? { tokenId: row.token_id, principalId: row.principal_id, name: row.name, lastUsedAt: row.last_used_at } : null;
  }

  async touchToken(tx: EntityManager, tokenId: string, now: Date): Promise<void> {
    await tx.update(ApiTokenEntity, { id: tokenId }, { lastUsedAt: now });
  }

  async findPrincipal(tx: EntityManager, name: string): Promise<PrincipalEntity | null> {
    return tx.findOne(PrincipalEntity, { where: { name } });
  }

  async createPrincipal(tx: EntityManager, name: string, kind: PrincipalKind, isAdmin: boolean, now: Date): Promise<PrincipalEntity> {
    return tx.save(tx.create(PrincipalEntity, { name, kind, isAdmin, createdAt: now, disabledAt: null }));
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

  async createToken(tx: EntityManager, principalId: string, name: string, tokenHash: string, now: Date): Promise<ApiTokenEntity> {
    return tx.save(
      tx.create(ApiTokenEntity, { principalId, name, tokenHash, createdAt: now, expiresAt: null, lastUsedAt: null, revokedAt: null }),
    );
  }
}
