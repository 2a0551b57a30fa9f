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

  role(tx: EntityManager, path: string): Promise<RoleEntity | null> {
    return tx.findOne(RoleEntity, { where: { path } });
  }

  /** Makes sure the role has a row (weight 1 unless given); sets its weight when given. */
  async ensureRole(tx: EntityManager, path: string, now: Date, weight?: number): Promise<void> {
    const row = await this.role(tx, path);
    if (row) {
      if (weight !== undefined) await tx.update(RoleEntity, { path }, { weight, updatedAt: now });
    } else await tx.insert(RoleEntity, { path, weight: weight ?? 1, createdAt: now, updatedAt: now });
  }

  quotas(tx: EntityManager): Promise<QuotaEntity[]> {
    return tx.find(QuotaEntity, { order: { role: 'ASC' } });
  }

  quota(tx: EntityManager, role: string): Promise<QuotaEntity | null> {
    return tx.findOne(QuotaEntity, { where: { role } });
  }

  async saveQuota(tx: EntityManager, quota: QuotaEntity): Promise<void> {
    await tx.save(QuotaEntity, quota);
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
