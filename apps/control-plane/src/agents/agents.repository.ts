import { Injectable } from '@nestjs/common';
import { type EntityManager, In, Not } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import type { HostScope } from '../config/acls.rules';
import { MaintenanceMachineEntity } from '../maintenance/maintenance-machine.entity';
import { outstandingOffers } from '../offers/offers.repository';
import { ReservationEntity } from '../reservations/reservation.entity';
import { TaskEntity, TERMINAL_TASK_STATES } from '../tasks/task.entity';
import { ExecutorEntity, ExecutorState } from '../executors/executor.entity';
import { WhitelistEntity } from '../whitelist/whitelist.entity';
import { AgentEntity, type AgentStatus, type DrainState } from './agent.entity';

export const AGENT_SORT_FIELDS = ['hostname', 'firstSeenAt', 'lastSeenAt', 'status'] as const;
export type AgentSortField = (typeof AGENT_SORT_FIELDS)[number];

export interface AgentFilter {
  /** Substring of the hostname, case-insensitive. */
  hostname?: string;
  status?: AgentStatus;
  activated?: boolean;
  /** 'NONE' for agents not draining. */
  drainState?: DrainState | 'NONE';
  /** The hostnames the caller may see (the view_agents ACL). */
  hosts?: HostScope;
}

/** Rows that place resources on agents. */
export interface OnAgent {
  agentId: string;
  resources: ResourceEntry[];
}

export interface AgentOccupancy {
  tasks: OnAgent[];
  /** Running executors' own resources. */
  executors: OnAgent[];
  offers: OnAgent[];
  reservations: OnAgent[];
  /** null: no whitelist (every agent may be offered). */
  whitelist: string[] | null;
  machines: MaintenanceMachineEntity[];
}

const SORT_COLUMNS: Record<AgentSortField, string> = {
  hostname: 'a.hostname',
  firstSeenAt: 'a.first_seen_at',
  lastSeenAt: 'a.last_seen_at',
  status: 'a.status',
};

@Injectable()
export class AgentsRepository {
  async findById(tx: EntityManager, id: string, options: { lock?: boolean } = {}): Promise<AgentEntity | null> {
    return tx.findOne(AgentEntity, { where: { id }, ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  async list(
    tx: EntityManager,
    filter: AgentFilter,
    sort: { field: AgentSortField; descending: boolean },
    limit: number,
    offset: number,
  ): Promise<{ items: AgentEntity[]; total: number }> {
    const q = tx.createQueryBuilder(AgentEntity, 'a');
    if (filter.hostname)
      q.andWhere("a.hostname ILIKE :hostname ESCAPE '\\'", { hostname: `%${filter.hostname.replace(/[\\%_]/g, '\\$&')}%` });
    if (filter.status) q.andWhere('a.status = :status', { status: filter.status });
    if (filter.activated !== undefined) q.andWhere('a.activated = :activated', { activated: filter.activated });
    if (filter.drainState === 'NONE') q.andWhere('a.drain_state IS NULL');
    else if (filter.drainState) q.andWhere('a.drain_state = :drainState', { drainState: filter.drainState });
    const hosts = filter.hosts;
    // The first entry whose hostname pattern matches decides, as the ACLs' first-match rule does.
    if (hosts && (hosts.rules.length || !hosts.rest))
      q.andWhere(
        `COALESCE((SELECT r.allow FROM unnest(CAST(:hostRegexes AS text[]), CAST(:hostAllows AS boolean[])) WITH ORDINALITY AS r(regex, allow, i)
          WHERE a.hostname ~ r.regex ORDER BY r.i LIMIT 1), CAST(:hostRest AS boolean))`,
        { hostRegexes: hosts.rules.map((r) => r.regex), hostAllows: hosts.rules.map((r) => r.allow), hostRest: hosts.rest },
      );
    const direction = sort.descending ? 'DESC' : 'ASC';
    q.orderBy(SORT_COLUMNS[sort.field], direction).addOrderBy('a.id', direction);
    const [items, total] = await q.take(limit).skip(offset).getManyAndCount();
    return { items, total };
  }

  /** Every agent that still counts (not GONE): the cluster's capacity. */
  async listPresent(tx: EntityManager): Promise<AgentEntity[]> {
    return tx.createQueryBuilder(AgentEntity, 'a').where("a.status <> 'GONE'").getMany();
  }

  /**
   * What sits on the given agents: live tasks, outstanding offers and reservations (their
   * resources, by agent), the whitelist, and the maintenance schedule of their hostnames.
   */
  async occupancy(tx: EntityManager, agents: AgentEntity[]): Promise<AgentOccupancy> {
    const ids = agents.map((a) => a.id);
    const hostnames = [...new Set(agents.map((a) => a.hostname))];
    const byAgent = { agentId: true, resources: true } as const;
    const [tasks, executors, offers, reservations, whitelist, machines] = ids.length
      ? await Promise.all([
          tx.find(TaskEntity, { select: byAgent, where: { agentId: In(ids), state: Not(In([...TERMINAL_TASK_STATES])) } }),
          tx.find(ExecutorEntity, { select: byAgent, where: { agentId: In(ids), state: ExecutorState.RUNNING } }),
          outstandingOffers(tx).select(['o.agentId', 'o.resources']).where('o.agent_id IN (:...ids)', { ids }).getMany(),
          tx.find(ReservationEntity, { select: byAgent, where: { agentId: In(ids) } }),
          tx.findOne(WhitelistEntity, { where: { id: 1 } }),
          tx.find(MaintenanceMachineEntity, { where: { hostname: In(hostnames) }, relations: { window: true } }),
        ])
      : [[], [], [], [], null, []];
    return { tasks, executors, offers, reservations, whitelist: whitelist?.hostnames ?? null, machines };
  }

  async save(tx: EntityManager, agent: AgentEntity): Promise<AgentEntity> {
    return tx.save(AgentEntity, agent);
  }

  create(tx: EntityManager, fields: AgentEntity): AgentEntity {
    return tx.create(AgentEntity, fields);
  }
}
