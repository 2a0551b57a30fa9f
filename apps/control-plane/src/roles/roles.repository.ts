/** Every query of roles, weights and quotas. */
import { Injectable } from '@nestjs/common';
import { type EntityManager, Not } from 'typeorm';
import { AgentEntity, AgentStatus } from '../agents/agent.entity';
import { sumScalars } from '../common/resources.dto';
import { FrameworkEntity, FrameworkState } from '../frameworks/framework.entity';
import { ReservationEntity } from '../reservations/reservation.entity';
import { QuotaEntity, type ScalarMap } from './quota.entity';
import { RoleEntity } from './role.entity';

@Injectable()
export class RolesRepository {
  /** What names roles: their rows, quotas, frameworks not completed (their roles) and reservations (role and resources). */
  async overview(tx: EntityManager): Promise<{
    rows: RoleEntity[];
    quotas: QuotaEntity[];
    frameworks: Array<Pick<FrameworkEntity, 'id' | 'roles'>>;
    reservations: Array<Pick<ReservationEntity, 'role' | 'resources'>>;
  }> {
    const [rows, quotas, frameworks, reservations] = await Promise.all([
      tx.find(RoleEntity),
      tx.find(QuotaEntity),
      tx.find(FrameworkEntity, { where: { state: Not(FrameworkState.COMPLETED) }, select: { id: true, roles: true } }),
      tx.find(ReservationEntity, { select: { role: true, resources: true } }),
    ]);
    return { rows, quotas, frameworks, reservations };
  }

  roles(tx: EntityManager): Promise<RoleEntity[]> {
    return tx.find(RoleEntity, { order: { path: 'ASC' } });
  }

  /**
   * Makes sure the role has a row (weight 1 unless given) and sets its weight when given, in one
   * statement; returns the weight it had (null when it had no row).
   */
  async ensureRole(tx: EntityManager, path: string, now: Date, weight?: number): Promise<number | null> {
    const rows: Array<{ before: number | null }> = await tx.query(
      `WITH before AS (SELECT weight FROM roles WHERE path = $1),
       up AS (INSERT INTO roles (path, weight, created_at, updated_at) VALUES ($1, COALESCE($2::double precision, 1), $3, $3)
              ON CONFLICT (path) DO UPDATE SET weight = EXCLUDED.weight, updated_at = EXCLUDED.updated_at WHERE $2::double precision IS NOT NULL)
       SELECT (SELECT weight FROM before) AS before`,
      [path, weight ?? null, now],
    );
    return rows.at(0)?.before ?? null;
  }

  quotas(tx: EntityManager): Promise<QuotaEntity[]> {
    return tx.find(QuotaEntity, { order: { role: 'ASC' } });
  }

  quota(tx: EntityManager, role: string): Promise<QuotaEntity | null> {
    return tx.findOne(QuotaEntity, { where: { role } });
  }

  async saveQuota(tx: EntityManager, quota: Omit<QuotaEntity, 'roleRef'>): Promise<void> {
    await tx.query(
      `INSERT INTO quotas (role, guarantees, limits, updated_at) VALUES ($1, $2::jsonb, $3::jsonb, $4)
       ON CONFLICT (role) DO UPDATE SET guarantees = EXCLUDED.guarantees, limits = EXCLUDED.limits, updated_at = EXCLUDED.updated_at`,
      [quota.role, JSON.stringify(quota.guarantees), JSON.stringify(quota.limits), quota.updatedAt],
    );
  }

  async deleteQuota(tx: EntityManager, role: string): Promise<void> {
    await tx.delete(QuotaEntity, { role });
  }

  /** Scalar totals of the agents that still count (not GONE), unreserved and reserved alike. */
  async capacity(tx: EntityManager): Promise<ScalarMap> {
    const agents = await tx.find(AgentEntity, { where: { status: Not(AgentStatus.GONE) }, select: { resources: true } });
    return sumScalars(agents.map((a) => a.resources));
  }
}
