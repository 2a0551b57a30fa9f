/** Every query of the cluster summary: sums and counts over the cluster's tables. */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';
import { AllocationUsageRepository, OUTSTANDING_OFFERS_SQL } from '../master/allocation-usage.repository';
import type { FrameworkState } from '../frameworks/framework.entity';
import { MachineMode } from '../maintenance/maintenance-machine.entity';
import { TERMINAL_TASK_STATES_SQL } from '../tasks/task.entity';

type Sums = Map<string, number>;
const LIVE = `state NOT IN ${TERMINAL_TASK_STATES_SQL}`;
const ON_REACHABLE = `agent_id IN (SELECT id FROM agents WHERE status = 'REACHABLE')`;

/** Every query of the summary: aggregates in SQL, so the summary stays cheap on large clusters. */
@Injectable()
export class ClusterRepository {
  constructor(private readonly usage: AllocationUsageRepository) {}

  async resourceSums(tx: EntityManager): Promise<{ total: Sums; used: Sums; offered: Sums; reserved: Sums }> {
    const [total, used, offered, reserved] = await Promise.all([
      this.usage.reachableCapacity(tx),
      // Live tasks and the running executors' own resources.
      this.usage.scalarSums(
        tx,
        `SELECT resources FROM tasks WHERE ${LIVE} AND ${ON_REACHABLE}
         UNION ALL SELECT resources FROM executors WHERE state = 'RUNNING' AND ${ON_REACHABLE}`,
      ),
      this.usage.scalarSums(tx, `SELECT resources FROM (${OUTSTANDING_OFFERS_SQL}) o WHERE ${ON_REACHABLE}`),
      this.usage.scalarSums(tx, `SELECT resources FROM reservations WHERE ${ON_REACHABLE}`),
    ]);
    return { total, used, offered, reserved };
  }

  agents(
    tx: EntityManager,
  ): Promise<Array<{ id: string; hostname: string; status: string; activated: boolean; drain_state: string | null; last_seen_at: Date }>> {
    return tx.query(
      `SELECT id, hostname, status, activated, drain_state, last_seen_at FROM agents WHERE status <> 'GONE' ORDER BY hostname`,
    );
  }

  async goneAgents(tx: EntityManager): Promise<number> {
    const [row]: Array<{ n: string }> = await tx.query(`SELECT count(*) AS n FROM agents WHERE status = 'GONE'`);
    return Number(row.n);
  }

  frameworks(tx: EntityManager): Promise<
    Array<{
      id: string;
      name: string;
      state: FrameworkState;
      disconnected_at: Date | null;
      failover_timeout_seconds: number;
      roles: string[];
      suppressed_roles: string[];
    }>
  > {
    return tx.query(
      `SELECT id, name, state, disconnected_at, failover_timeout_seconds, roles, suppressed_roles FROM frameworks WHERE state <> 'COMPLETED'`,
    );
  }

  async completedFrameworks(tx: EntityManager): Promise<number> {
    const [row]: Array<{ n: string }> = await tx.query(`SELECT count(*) AS n FROM frameworks WHERE state = 'COMPLETED'`);
    return Number(row.n);
  }

  async tasksByState(tx: EntityManager): Promise<Record<string, number>> {
    const rows: Array<{ state: string; n: string }> = await tx.query(`SELECT state, count(*) AS n FROM tasks GROUP BY state`);
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  downMachines(tx: EntityManager): Promise<Array<{ hostname: string; ip: string }>> {
    return tx.query(`SELECT hostname, ip FROM maintenance_machines WHERE mode = '${MachineMode.DOWN}' ORDER BY hostname, ip`);
  }

  async whitelist(tx: EntityManager): Promise<string[] | null> {
    const rows: Array<{ hostnames: string[] | null }> = await tx.query(`SELECT hostnames FROM whitelist WHERE id = 1`);
    return rows.at(0)?.hostnames ?? null;
  }

  quotas(tx: EntityManager): Promise<Array<{ role: string; guarantees: Record<string, number> }>> {
    return tx.query(`SELECT role, guarantees FROM quotas ORDER BY role`);
  }

  /** Scalars held on reachable agents by live tasks and outstanding offers of each top-level role and its subroles. */
  async consumedByTopRole(tx: EntityManager): Promise<Map<string, Sums>> {
    const rows: Array<{ role: string; name: string; amount: number }> = await tx.query(
      `SELECT split_part(src.role, '/', 1) AS role, e->>'name' AS name, sum((e->>'value')::float8) AS amount
         FROM (SELECT role, resources FROM tasks WHERE ${LIVE} AND ${ON_REACHABLE} UNION ALL SELECT role, resources FROM (${OUTSTANDING_OFFERS_SQL}) o WHERE ${ON_REACHABLE}) src,
              jsonb_array_elements(src.resources) e
        WHERE e ? 'value' GROUP BY 1, 2`,
    );
    const out = new Map<string, Sums>();
    for (const r of rows) out.set(r.role, (out.get(r.role) ?? new Map<string, number>()).set(r.name, r.amount));
    return out;
  }

  lastCycle(tx: EntityManager): Promise<AllocationCycleEntity | null> {
    return tx.findOne(AllocationCycleEntity, { where: {}, order: { id: 'DESC' } });
  }
}
