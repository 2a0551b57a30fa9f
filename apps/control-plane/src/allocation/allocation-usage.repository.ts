/**
 * What is in use: resources of live tasks (not in a terminal state) and of outstanding offers.
 * Reservations, roles and agents read usage through here; the allocation loop will write it.
 */
import { Injectable } from '@nestjs/common';
import { type EntityManager, In, Not } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { outstandingOffers } from '../offers/offers.repository';
import { TaskEntity, TERMINAL_TASK_STATES } from '../tasks/task.entity';

export interface Usage {
  agentId: string;
  role: string;
  frameworkId: string;
  resources: ResourceEntry[];
}

@Injectable()
export class AllocationUsageRepository {
  async list(tx: EntityManager, where: { agentId?: string } = {}): Promise<Usage[]> {
    const select = { agentId: true, role: true, frameworkId: true, resources: true } as const;
    const [tasks, offers] = await Promise.all([
      tx.find(TaskEntity, { select, where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) } }),
      (where.agentId ? outstandingOffers(tx).where('o.agent_id = :agentId', { agentId: where.agentId }) : outstandingOffers(tx))
        .select(['o.agentId', 'o.role', 'o.frameworkId', 'o.resources'])
        .getMany(),
    ]);
    return [...tasks, ...offers];
  }

  /** Resources of live tasks only (outstanding offers can be rescinded, tasks cannot). */
  async liveTasks(tx: EntityManager, where: { agentId?: string } = {}): Promise<Usage[]> {
    return tx.find(TaskEntity, {
      select: { agentId: true, role: true, frameworkId: true, resources: true },
      where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) },
    });
  }

  /**
   * Scalar amounts summed by name, in SQL, over the rows a query selects (its `resources`
   * column): cheap on large clusters, where summing in JavaScript would read every row.
   */
  async scalarSums(tx: EntityManager, from: string, params: unknown[] = []): Promise<Map<string, number>> {
    const rows: Array<{ name: string; amount: number }> = await tx.query(
      `SELECT e->>'name' AS name, sum((e->>'value')::float8) AS amount FROM (${from}) src, jsonb_array_elements(src.resources) e WHERE e ? 'value' GROUP BY 1`,
      params,
    );
    return new Map(rows.map((r) => [r.name, r.amount]));
  }

  /** Scalar totals of the reachable agents: the cluster's capacity that can be offered. */
  reachableCapacity(tx: EntityManager): Promise<Map<string, number>> {
    return this.scalarSums(tx, `SELECT resources FROM agents WHERE status = 'REACHABLE'`);
  }

  async countLiveTasks(tx: EntityManager, agentId: string): Promise<number> {
    return tx.count(TaskEntity, { where: { agentId, state: Not(In([...TERMINAL_TASK_STATES])) } });
  }
}
