/** Every query of reservations. */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { AgentEntity } from '../agents/agent.entity';
import { ReservationEntity } from './reservation.entity';

@Injectable()
export class ReservationsRepository {
  list(
    tx: EntityManager,
    filter: { agentId?: string; role?: string },
    limit: number,
    offset: number,
  ): Promise<[ReservationEntity[], number]> {
    const where = { ...(filter.agentId ? { agentId: filter.agentId } : {}), ...(filter.role ? { role: filter.role } : {}) };
    return tx.findAndCount(ReservationEntity, { where, order: { createdAt: 'DESC', id: 'ASC' }, take: limit, skip: offset });
  }

  find(tx: EntityManager, id: string): Promise<ReservationEntity | null> {
    return tx.findOne(ReservationEntity, { where: { id } });
  }

  /** An agent's reservations (a role's only, when given), newest first. */
  onAgent(tx: EntityManager, agentId: string, role?: string): Promise<ReservationEntity[]> {
    return tx.find(ReservationEntity, { where: { agentId, ...(role ? { role } : {}) }, order: { createdAt: 'DESC' } });
  }

  agent(tx: EntityManager, id: string): Promise<AgentEntity | null> {
    return tx.findOne(AgentEntity, { where: { id } });
  }

  insert(tx: EntityManager, row: Omit<ReservationEntity, 'id'>): Promise<ReservationEntity> {
    return tx.save(tx.create(ReservationEntity, row));
  }

  async resize(tx: EntityManager, id: string, resources: ResourceEntry[]): Promise<void> {
    await tx.update(ReservationEntity, { id }, { resources });
  }

  async delete(tx: EntityManager, id: string): Promise<void> {
    await tx.delete(ReservationEntity, { id });
  }
}
