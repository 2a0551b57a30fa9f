/**
 * What is in use: resources of live tasks (not in a terminal state), of running executors (their
 * own, beside their tasks') and of outstanding offers.
 * Reservations, roles and agents read usage through here; the allocation loop will write it.
 */
import { Injectable } from '@nestjs/common';
import { type EntityManager, In, Not } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { OUTSTANDING_OFFERS_SQL, outstandingOffers } from '../offers/offers.repository';
import { TaskEntity, TERMINAL_TASK_STATES, TERMINAL_TASK_STATES_SQL } from '../tasks/task.entity';
import { ExecutorEntity, ExecutorState } from '../executors/executor.entity';

/** Running executors' own resources, as rows of `key` and `resources` (`key` the column named). */
const runningExecutors = (key: string, where = '') =>
  `SELECT ${key} AS key, resources FROM executors WHERE state = '${ExecutorState.RUNNING}'${where}`;

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
    const [tasks, executors, offers] = await Promise.all([
      tx.find(TaskEntity, { select, where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) } }),
      tx.find(ExecutorEntity, { select, where: { ...where, state: ExecutorState.RUNNING } }),
      (where.agentId ? outstandingOffers(tx).where('o.agent_id = :agentId', { agentId: where.agentId }) : outstandingOffers(tx))
        .select(['o.agentId', 'o.role', 'o.frameworkId', 'o.resources'])
        .getMany(),
    ]);
    return [...tasks, ...executors, ...offers];
  }

  /** Resources of live tasks and their executors only (outstanding offers can be rescinded, tasks cannot). */
  async liveTasks(tx: EntityManager, where: { agentId?: string } = {}): Promise<Usage[]> {
    const select = { agentId: true, role: true, frameworkId: true, resources: true } as const;
    const [tasks, executors] = await Promise.all([
      tx.find(TaskEntity, { select, where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) } }),
      tx.find(ExecutorEntity, { select, where: { ...where, state: ExecutorState.RUNNING } }),
    ]);
    return [...tasks, ...executors];
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

  /**
   * Scalar amounts summed by name per key, in SQL, over the rows a query selects (its `key` and
   * `resources` columns), rounded to thousandths as Resources counts them.
   */
  async scalarSumsBy(tx: EntityManager, from: string, params: unknown[] = []): Promise<Map<string, Record<string, number>>> {
    const rows: Array<{ key: string; name: string; amount: number }> = await tx.query(
      `SELECT src.key AS key, e->>'name' AS name, sum((e->>'value')::float8) AS amount
         FROM (${from}) src, jsonb_array_elements(src.resources) e WHERE e ? 'value' GROUP BY 1, 2 ORDER BY 2`,
      params,
    );
    const out = new Map<string, Record<string, number>>();
    for (const r of rows) {
      const amount = Math.round(r.amount * 1000) / 1000;
      if (amount <= 0) continue;
      let sums = out.get(r.key);
      if (!sums) out.set(r.key, (sums = {}));
      sums[r.name] = amount;
    }
    return out;
  }

  /** Scalar sums of live tasks and outstanding offers, per role. */
  usageByRole(tx: EntityManager): Promise<Map<string, Record<string, number>>> {
    return this.scalarSumsBy(
      tx,
      `SELECT role AS key, resources FROM tasks WHERE state NOT IN ${TERMINAL_TASK_STATES_SQL}
       UNION ALL ${runningExecutors('role')}
       UNION ALL SELECT role AS key, resources FROM (${OUTSTANDING_OFFERS_SQL}) o`,
    );
  }

  /** Scalar sums of the live tasks of these frameworks, and their number, per framework. */
  async liveByFramework(tx: EntityManager, frameworkIds: string[]): Promise<Map<string, { tasks: number; used: Record<string, number> }>> {
    const live = `SELECT framework_id AS key, resources FROM tasks WHERE framework_id = ANY($1) AND state NOT IN ${TERMINAL_TASK_STATES_SQL}`;
    const [sums, counts] = await Promise.all([
      this.scalarSumsBy(tx, `${live} UNION ALL ${runningExecutors('framework_id', ' AND framework_id = ANY($1)')}`, [frameworkIds]),
      tx.query<Array<{ key: string; n: string }>>(`SELECT key, count(*) AS n FROM (${live}) src GROUP BY 1`, [frameworkIds]),
    ]);
    return new Map(counts.map((c) => [c.key, { tasks: Number(c.n), used: sums.get(c.key) ?? {} }]));
  }

  /** Scalar totals of the reachable agents: the cluster's capacity that can be offered. */
  reachableCapacity(tx: EntityManager): Promise<Map<string, number>> {
    return this.scalarSums(tx, `SELECT resources FROM agents WHERE status = 'REACHABLE'`);
  }

  async countLiveTasks(tx: EntityManager, agentId: string): Promise<number> {
    return tx.count(TaskEntity, { where: { agentId, state: Not(In([...TERMINAL_TASK_STATES])) } });
  }
}
