/**
 * What sits on agents, for the operators' agent list: live tasks, running executors, outstanding offers and
 * reservations (their resources, by agent), the whitelist, and the maintenance schedule of
 * their hostnames. A read-only view below the nouns (as AllocationUsageRepository is), so that
 * the agents' list reads the tables of the nouns that name an agent without depending on them.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { reads } from '../database/database.service';
import { OUTSTANDING_OFFERS_SQL } from './allocation-usage.repository';
import { TERMINAL_TASK_STATES_SQL } from './task-state';

/** Rows that place resources on agents. */
export interface OnAgent {
  agentId: string;
  resources: ResourceEntry[];
}

/** A machine of the maintenance schedule that is not UP, with its window. */
export interface MachineInMaintenance {
  hostname: string;
  mode: 'DRAINING' | 'DOWN';
  startAt: Date;
  /** NULL: until maintenance is stopped. */
  durationSeconds: number | null;
}

export interface AgentOccupancy {
  tasks: OnAgent[];
  /** Running executors' own resources. */
  executors: OnAgent[];
  offers: OnAgent[];
  reservations: OnAgent[];
  /** null: no whitelist (every agent may be offered). */
  whitelist: string[] | null;
  machines: MachineInMaintenance[];
}

@Injectable()
export class AgentOccupancyRepository {
  /** What sits on the agents of these ids, and the schedule of these hostnames. */
  async occupancy(tx: EntityManager, agents: ReadonlyArray<{ id: string; hostname: string }>): Promise<AgentOccupancy> {
    if (!agents.length) return { tasks: [], executors: [], offers: [], reservations: [], whitelist: null, machines: [] };
    const ids = agents.map((a) => a.id);
    const hostnames = [...new Set(agents.map((a) => a.hostname))];
    const onAgents = (from: string): Promise<OnAgent[]> =>
      tx.query(`SELECT agent_id AS "agentId", resources FROM (${from}) src WHERE agent_id = ANY($1)`, [ids]);
    const [tasks, executors, offers, reservations, whitelist, machines] = await reads(tx, [
      () => onAgents(`SELECT agent_id, resources FROM tasks WHERE state NOT IN ${TERMINAL_TASK_STATES_SQL}`),
      () => onAgents(`SELECT agent_id, resources FROM executors WHERE state = 'RUNNING'`),
      () => onAgents(OUTSTANDING_OFFERS_SQL),
      () => onAgents('SELECT agent_id, resources FROM reservations'),
      () => tx.query<Array<{ hostnames: string[] | null }>>('SELECT hostnames FROM whitelist WHERE id = 1'),
      () =>
        tx.query<MachineInMaintenance[]>(
          `SELECT m.hostname, m.mode, w.start_at AS "startAt", w.duration_seconds AS "durationSeconds"
           FROM maintenance_machines m JOIN maintenance_windows w ON w.id = m.window_id
          WHERE m.hostname = ANY($1) AND m.mode <> 'UP'`,
          [hostnames],
        ),
    ]);
    return { tasks, executors, offers, reservations, whitelist: whitelist[0]?.hostnames ?? null, machines };
  }
}
