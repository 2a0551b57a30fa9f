/** The master's SQL of agents: registration, status, last sign of life, and what shapes an agent's total. */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { ReservationEntity } from '../reservations/reservation.entity';
import { AgentEntity, AgentStatus } from './agent.entity';

@Injectable()
export class AgentSessionsRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  find(id: string): Promise<AgentEntity | null> {
    return this.dataSource.manager.findOne(AgentEntity, { where: { id } });
  }

  reachable(): Promise<AgentEntity[]> {
    return this.dataSource.manager.find(AgentEntity, { where: { status: AgentStatus.REACHABLE } });
  }

  /** Saves a (re-)registration: a new agent's row, or the known one's changes. */
  register(agent: AgentEntity): Promise<AgentEntity> {
    return this.dataSource.transaction((tx) => tx.save(AgentEntity, tx.create(AgentEntity, agent)));
  }

  async setStatus(id: string, status: AgentStatus): Promise<void> {
    await this.dataSource.manager.update(AgentEntity, { id }, { status });
  }

  /** Marks these agents seen now. */
  async recordSeen(ids: string[]): Promise<void> {
    if (ids.length) await this.dataSource.query('UPDATE agents SET last_seen_at = now() WHERE id = ANY($1)', [ids]);
  }

  reservationsOn(agentId: string): Promise<ReservationEntity[]> {
    return this.dataSource.manager.find(ReservationEntity, { where: { agentId } });
  }
}
