/**
 * What is in use: resources of live tasks (not in a terminal state), of running executors (their
 * own, beside their tasks') and of outstanding offers,
 * read from the tables the master's handlers keep (as LiveViewRepository reads them): a
 * read-only view below the nouns, so that agents, frameworks, roles, reservations and the
 * cluster's summary read usage without depending on the tasks and offers that hold it.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { TERMINAL_TASK_STATES_SQL } from './task-state';

/** The outstanding offers' rows, in SQL (a subquery with every column of `offers`). */
export const OUTSTANDING_OFFERS_SQL = 'SELECT o.* FROM offers o JOIN outstanding_offers x ON x.offer_id = o.id';

/** Running executors' own resources, as rows of `key` and `resources` (`key` the column named). */
const runningExecutors = (key: string, where = '') => `SELECT ${key} AS key, resources FROM executors WHERE state = 'RUNNING'${where}`;

export interface Usage {
  agentId: string;
  role: string;
  frameworkId: string;
  resources: ResourceEntry[];
}

@Injectable()
export class AllocationUsageRepository {
  /**
   * The reserved disk a role's persistent volumes take on an agent (the `volumes` table), as plain
   * reserved disk pieces: a reservation cannot be removed from under them.
   */
  async volumeDisk(tx: EntityManager, agentId: string, role: string): Promise<ResourceEntry[]> {
    const rows: Array<{ disk: number; source: ResourceEntry['source'] | null }> = await tx.query(
      'SELECT disk, source FROM volumes WHERE agent_id = $1 AND role = $2',
      [agentId, role],
    );
    return rows.map((v) => ({ name: 'disk', value: v.disk, reservation: role, ...(v.source ? { source: v.source } : {}) }));
  }

  /** Resources of live tasks and their executors only (outstanding offers can be rescinded, tasks cannot). */
  async liveTasks(tx: EntityManager, where: { agentId?: string } = {}): Promise<Usage[]> {
    const onAgent = where.agentId === undefined ? '' : ' AND agent_id = $1';
    return tx.query(
      `SELECT agent_id AS "agentId", role, framework_id AS "frameworkId", resources FROM tasks
        WHERE state NOT IN ${TERMINAL_TASK_STATES_SQL}${onAgent}
       UNION ALL
       SELECT agent_id AS "agentId", role, framework_id AS "frameworkId", resources FROM executors
        WHERE state = 'RUNNING'${onAgent}`,
      where.agentId === undefined ? [] : [where.agentId],
    );
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
    const [row]: Array<{ n: string }> = await tx.query(
      `SELECT count(*) AS n FROM tasks WHERE agent_id = $1 AND state NOT IN ${TERMINAL_TASK_STATES_SQL}`,
      [agentId],
    );
    return Number(row.n);
  }
}
