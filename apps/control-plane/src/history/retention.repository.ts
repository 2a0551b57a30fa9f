/** Deletes what is past its retention, one small batch per statement. */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { TERMINAL_TASK_STATES_SQL } from '../tasks/task.entity';

/**
 * Pruned per statement: cycles (each with its shares and a trace), offers, ended tasks (each with
 * its status updates), and agents that left (each with its executors, reservations and volumes).
 */
export const PRUNE_BATCH = { cycles: 100, offers: 5_000, tasks: 2_000, agents: 500 } as const;

export interface Pruned {
  cycles: number;
  offers: number;
  tasks: number;
  agents: number;
}

@Injectable()
export class RetentionRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  /**
   * One batch: allocation cycles started before `history` (with their shares), offers made
   * before it except those still outstanding, and tasks that ended before `tasks` with their
   * status updates (except a task whose update its framework has yet to acknowledge, unless
   * the framework has completed); and agents unreachable or gone, last seen before `agents`,
   * none of whose tasks is live or ended after `tasks` (so that forgetting an agent never takes a
   * task the task retention keeps; an agent's tasks pruned in this statement let it go in the next).
   * Their executors, reservations and volumes go with them; a forgotten agent that comes back
   * registers as a new one, as in Mesos once its registry has forgotten it.
   */
  async pruneBatch(history: Date, tasks: Date, agents: Date): Promise<Pruned> {
    const [row]: Pruned[] = await this.dataSource.query(
      `WITH old_offers AS (
              SELECT id FROM offers o WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM outstanding_offers x WHERE x.offer_id = o.id)
               ORDER BY created_at LIMIT ${PRUNE_BATCH.offers}),
            offers_gone AS (DELETE FROM offers o USING old_offers WHERE o.id = old_offers.id RETURNING 1),
            old_cycles AS (SELECT id FROM allocation_cycles WHERE started_at < $1 ORDER BY id LIMIT ${PRUNE_BATCH.cycles}),
            cycles_gone AS (DELETE FROM allocation_cycles c USING old_cycles WHERE c.id = old_cycles.id RETURNING 1),
            old_tasks AS (
              SELECT t.id FROM tasks t
               WHERE t.state IN ${TERMINAL_TASK_STATES_SQL} AND t.updated_at < $2
                 AND NOT EXISTS (SELECT 1 FROM task_status_updates u JOIN frameworks f ON f.id = t.framework_id
                                  WHERE u.task_ref = t.id AND u.acknowledged_at IS NULL AND f.state <> 'COMPLETED')
               ORDER BY t.updated_at LIMIT ${PRUNE_BATCH.tasks}),
            tasks_gone AS (DELETE FROM tasks t USING old_tasks WHERE t.id = old_tasks.id RETURNING 1),
            old_agents AS (
              SELECT a.id FROM agents a
               WHERE a.status IN ('UNREACHABLE', 'GONE') AND a.last_seen_at < $3
                 AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.agent_id = a.id)
               ORDER BY a.last_seen_at LIMIT ${PRUNE_BATCH.agents}),
            agents_gone AS (DELETE FROM agents a USING old_agents WHERE a.id = old_agents.id RETURNING 1)
       SELECT (SELECT count(*) FROM cycles_gone)::int AS cycles, (SELECT count(*) FROM offers_gone)::int AS offers,
              (SELECT count(*) FROM tasks_gone)::int AS tasks, (SELECT count(*) FROM agents_gone)::int AS agents`,
      [history, tasks, agents],
    );
    return row;
  }
}
