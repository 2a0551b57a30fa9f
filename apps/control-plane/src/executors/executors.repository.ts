/** The SQL of executors: the master's records of them (fenced writes), and the operators' lists. */
import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import type { Scope } from '../config/acls.rules';
import { MasterDatabase } from '../database/master-database';
import { cappedTotal } from '../database/database.paging';
import { frameworkUserCondition } from '../database/scope-condition';
import { ExecutorEntity, ExecutorState } from './executor.entity';

/** How an executor ended. */
export interface ExecutorEnd {
  reason: string;
  exitStatus?: { exitCode?: number; signal?: string; message?: string } | null;
}

@Injectable()
export class ExecutorsRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  /** Executors that run (all of them: the master's state at start). */
  running(): Promise<ExecutorEntity[]> {
    return this.dataSource.manager.find(ExecutorEntity, { where: { state: ExecutorState.RUNNING } });
  }

  /** Records executors that started (one statement; one recorded already is left as it is, so it may run again). */
  async insert(rows: ExecutorEntity[]): Promise<void> {
    if (!rows.length) return;
    await this.dataSource.manager.createQueryBuilder().insert().into(ExecutorEntity).values(rows).orIgnore().execute();
  }

  /** Marks executors ended (by row id), each once. */
  async end(rowIds: string[], end: ExecutorEnd, at: Date): Promise<void> {
    if (!rowIds.length) return;
    await this.dataSource.manager.update(
      ExecutorEntity,
      { id: In(rowIds), state: ExecutorState.RUNNING },
      { state: ExecutorState.ENDED, endedAt: at, endReason: end.reason, exitStatus: end.exitStatus ?? null },
    );
  }
}

/** Executors as operators list them, newest first. */
@Injectable()
export class ExecutorListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `users`: the framework users whose executors the caller may see (the view_tasks ACL, as for tasks). */
  async list(
    filter: { agentId?: string; frameworkId?: string; state?: ExecutorState; users?: Scope },
    limit: number,
    offset: number,
  ): Promise<{ rows: ExecutorEntity[]; total: number; totalCapped: boolean }> {
    const q = this.dataSource.manager.createQueryBuilder(ExecutorEntity, 'e');
    const users = frameworkUserCondition('e.framework_id', filter.users);
    if (users) q.andWhere(...users);
    if (filter.agentId) q.andWhere('e.agent_id = :agentId', { agentId: filter.agentId });
    if (filter.frameworkId) q.andWhere('e.framework_id = :frameworkId', { frameworkId: filter.frameworkId });
    if (filter.state) q.andWhere('e.state = :state', { state: filter.state });
    const [rows, count] = await Promise.all([
      q.clone().orderBy('e.started_at', 'DESC').addOrderBy('e.id', 'ASC').take(limit).skip(offset).getMany(),
      cappedTotal(q, offset),
    ]);
    return { rows, ...count };
  }

  /** Per executor row, the ids of the tasks it ran (live or not), oldest first: tasks naming it while it ran. */
  async tasksOf(rows: ExecutorEntity[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(rows.map((r) => [r.id, []]));
    if (!rows.length) return out;
    const found: Array<{ ref: string; task_id: string }> = await this.dataSource.query(
      `SELECT v.ref, t.task_id
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])
              AS v(ref, agent_id, framework_id, executor_id, started_at, ended_at)
         JOIN tasks t ON t.agent_id = v.agent_id AND t.framework_id = v.framework_id
              AND t.command->'executor'->>'executorId' = v.executor_id
              AND t.created_at >= v.started_at AND (v.ended_at IS NULL OR t.created_at <= v.ended_at)
        ORDER BY t.created_at, t.task_id`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.agentId),
        rows.map((r) => r.frameworkId),
        rows.map((r) => r.executorId),
        rows.map((r) => r.startedAt),
        rows.map((r) => r.endedAt),
      ],
    );
    for (const f of found) out.get(f.ref)?.push(f.task_id);
    return out;
  }
}
