/** The master's SQL of agents: registration, status, last sign of life, and what shapes an agent's total. */
import type { AgentHealth } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { ReservationEntity } from '../reservations/reservation.entity';
import { VolumeEntity } from '../volumes/volume.entity';
import { AgentEntity, AgentStatus, DrainState } from '../agents/agent.entity';

/** Agents written per statement. */
const UPSERT_SLICE = 2_000;

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

  findMany(ids: string[]): Promise<AgentEntity[]> {
    return ids.length ? this.dataSource.manager.find(AgentEntity, { where: { id: In(ids) } }) : Promise.resolve([]);
  }

  reachable(): Promise<AgentEntity[]> {
    return this.dataSource.manager.find(AgentEntity, { where: { status: AgentStatus.REACHABLE } });
  }

  /** Saves (re-)registrations, in one statement: new agents' rows, known ones' changes. */
  async registerMany(agents: AgentEntity[]): Promise<void> {
    // One row per id: the last registration of an agent in the batch wins.
    const rows = [...new Map(agents.map((a) => [a.id, a])).values()];
    // In slices: PostgreSQL takes at most 65,535 parameters per statement (15 a row here).
    await this.dataSource.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += UPSERT_SLICE)
        await tx.upsert(AgentEntity, rows.slice(i, i + UPSERT_SLICE), { conflictPaths: ['id'], skipUpdateIfNoValuesChanged: false });
    });
  }

  /** Records an agent's new resources and attributes, with `within` (its audit entry) in the same transaction. */
  async updateTotal(
    id: string,
    change: Pick<AgentEntity, 'resources' | 'attributes'>,
    within: (tx: EntityManager) => Promise<void>,
  ): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.update(AgentEntity, { id }, change);
      await within(tx);
    });
  }

  /** Ends a drain: DRAINED, and GONE when the drain said markGone. */
  async finishDrain(id: string, markGone: boolean): Promise<void> {
    await this.dataSource.manager.update(
      AgentEntity,
      { id, drainState: DrainState.DRAINING },
      markGone ? { drainState: DrainState.DRAINED, status: AgentStatus.GONE } : { drainState: DrainState.DRAINED },
    );
  }

  async setStatus(id: string, status: AgentStatus): Promise<void> {
    await this.dataSource.manager.update(AgentEntity, { id }, { status });
  }

  /** Marks these agents seen now. */
  /** What the agent says keeps it from running new tasks (its heartbeat's health). */
  async setHealth(id: string, health: AgentHealth): Promise<void> {
    await this.dataSource.query('UPDATE agents SET health = $2::jsonb WHERE id = $1', [id, JSON.stringify(health)]);
  }

  async recordSeen(ids: string[]): Promise<void> {
    if (ids.length) await this.dataSource.query('UPDATE agents SET last_seen_at = now() WHERE id = ANY($1)', [ids]);
  }

  reservationsOn(agentId: string): Promise<ReservationEntity[]> {
    return this.dataSource.manager.find(ReservationEntity, { where: { agentId } });
  }

  volumesOn(agentId: string): Promise<VolumeEntity[]> {
    return this.dataSource.manager.find(VolumeEntity, { where: { agentId } });
  }

  /** The persistent volumes on these agents, by agent. */
  async volumesOnAgents(agentIds: string[]): Promise<Map<string, VolumeEntity[]>> {
    const byAgent = new Map<string, VolumeEntity[]>();
    if (!agentIds.length) return byAgent;
    for (const v of await this.dataSource.manager.find(VolumeEntity, { where: { agentId: In(agentIds) } }))
      byAgent.set(v.agentId, [...(byAgent.get(v.agentId) ?? []), v]);
    return byAgent;
  }

  /** The reservations on these agents, by agent. */
  async reservationsOnAgents(agentIds: string[]): Promise<Map<string, ReservationEntity[]>> {
    const byAgent = new Map<string, ReservationEntity[]>();
    if (!agentIds.length) return byAgent;
    for (const r of await this.dataSource.manager.find(ReservationEntity, { where: { agentId: In(agentIds) } })) {
      const list = byAgent.get(r.agentId);
      if (list) list.push(r);
      else byAgent.set(r.agentId, [r]);
    }
    return byAgent;
  }
}
