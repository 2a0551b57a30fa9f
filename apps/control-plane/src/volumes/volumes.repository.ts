/** Every query of persistent volumes. */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AgentEntity } from '../agents/agent.entity';
import { ReservationEntity } from '../reservations/reservation.entity';
import { VolumeEntity } from './volume.entity';

@Injectable()
export class VolumesRepository {
  list(tx: EntityManager, filter: { agentId?: string; role?: string }, limit: number, offset: number): Promise<[VolumeEntity[], number]> {
    const where = { ...(filter.agentId ? { agentId: filter.agentId } : {}), ...(filter.role ? { role: filter.role } : {}) };
    return tx.findAndCount(VolumeEntity, { where, order: { createdAt: 'DESC', id: 'ASC' }, take: limit, skip: offset });
  }

  find(tx: EntityManager, id: string): Promise<VolumeEntity | null> {
    return tx.findOne(VolumeEntity, { where: { id } });
  }

  byPersistenceId(tx: EntityManager, agentId: string, role: string, persistenceId: string): Promise<VolumeEntity | null> {
    return tx.findOne(VolumeEntity, { where: { agentId, role, persistenceId } });
  }

  /** An agent's volumes (a role's only, when given). */
  onAgent(tx: EntityManager, agentId: string, role?: string): Promise<VolumeEntity[]> {
    return tx.find(VolumeEntity, { where: { agentId, ...(role ? { role } : {}) }, order: { createdAt: 'ASC' } });
  }

  /** The role's reservations on an agent (their disk is what volumes are made of). */
  reservationsOn(tx: EntityManager, agentId: string, role: string): Promise<ReservationEntity[]> {
    return tx.find(ReservationEntity, { where: { agentId, role } });
  }

  agent(tx: EntityManager, id: string): Promise<AgentEntity | null> {
    return tx.findOne(AgentEntity, { where: { id } });
  }

  insert(tx: EntityManager, row: Omit<VolumeEntity, 'id'>): Promise<VolumeEntity> {
    return tx.save(tx.create(VolumeEntity, row));
  }

  async delete(tx: EntityManager, id: string): Promise<void> {
    await tx.delete(VolumeEntity, { id });
  }
}
