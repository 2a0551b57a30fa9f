/** The master's SQL of tasks: live tasks, status updates recorded in one statement, acknowledgements, resends. */
import type { Scope } from '../config/acls.rules';
import { FrameworkEntity } from '../frameworks/framework.entity';
import { Injectable } from '@nestjs/common';
import type { ResourceEntry, StatusUpdate } from '@arbiter/contracts';
import { DataSource, In, Not, Raw } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { cappedTotal } from '../database/database.paging';
import { frameworkUserCondition } from '../database/scope-condition';
import { type ExecutorFields, executorFieldsOf, TaskStatusUpdateEntity } from './task-status-update.entity';
import { TaskEntity, type TaskState, TERMINAL_TASK_STATES } from './task.entity';

/** A status update as stored and not yet acknowledged, with its task's ids. */
export interface UnacknowledgedUpdate {
  frameworkId: string;
  taskId: string;
  agentId: string;
  state: string;
  reason: string | null;
  message: string | null;
  updateUuid: string;
  at: Date;
  source: string;
  /** What its executor attached (data, healthy, labels), to send with it again. */
  executorFields: ExecutorFields | null;
}

@Injectable()
export class TasksRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  /** Tasks not in a terminal state (all, or an agent's, or a framework's). */
  live(where: { agentId?: string; frameworkId?: string } = {}): Promise<TaskEntity[]> {
    return this.dataSource.manager.find(TaskEntity, { where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) } });
  }

  /** The live tasks on these agents, by agent. */
  async liveOnAgents(agentIds: string[]): Promise<Map<string, TaskEntity[]>> {
    const byAgent = new Map<string, TaskEntity[]>();
    if (!agentIds.length) return byAgent;
    const rows = await this.dataSource.manager.find(TaskEntity, {
      where: { agentId: In(agentIds), state: Not(In([...TERMINAL_TASK_STATES])) },
    });
    for (const t of rows) {
      const list = byAgent.get(t.agentId);
      if (list) list.push(t);
      else byAgent.set(t.agentId, [t]);
    }
    return byAgent;
  }

  find(frameworkId: string, taskId: string): Promise<TaskEntity | null> {
    return this.dataSource.manager.findOne(TaskEntity, { where: { frameworkId, taskId } });
  }

  /** One array parameter, not one per id: a reconcile may name 100,000 tasks (PostgreSQL binds at most 65,535 parameters). */
  findMany(frameworkId: string, taskIds: string[]): Promise<TaskEntity[]> {
    return this.dataSource.manager.find(TaskEntity, {
      where: { frameworkId, taskId: Raw((column) => `${column} = ANY(:taskIds)`, { taskIds }) },
    });
  }

  /** Tasks by (framework id, task id), without their commands. */
  async findByKeys(pairs: Array<{ frameworkId: string; taskId: string }>): Promise<TaskEntity[]> {
    const found: Array<{
      id: string;
      task_id: string;
      framework_id: string;
      agent_id: string;
      name: string;
      role: string;
      resources: ResourceEntry[];
      state: TaskState;
      created_at: Date;
      updated_at: Date;
    }> = await this.dataSource.query(
      `SELECT t.id, t.task_id, t.framework_id, t.agent_id, t.name, t.role, t.resources, t.state, t.created_at, t.updated_at
         FROM tasks t JOIN unnest($1::text[], $2::text[]) AS v(framework_id, task_id) ON t.framework_id = v.framework_id AND t.task_id = v.task_id`,
      [pairs.map((u) => u.frameworkId), pairs.map((u) => u.taskId)],
    );
    return found.map((r) => ({
      id: r.id,
      taskId: r.task_id,
      frameworkId: r.framework_id,
      agentId: r.agent_id,
      name: r.name,
      role: r.role,
      resources: r.resources,
      command: null,
      state: r.state,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }

  /**
   * Records status updates in one statement, so one round trip and all or nothing: the updates
   * not recorded before go in (each once, by updateUuid), and each of their tasks moves to its
   * final state (in arrival order, stopping at the first terminal one) and takes that update's
   * health and check status when it carries them. Updates of a task that
   * had already ended before the statement (LOST when its agent went silent, then KILLED by the
   * agent that came back, say) are not recorded: a task has one end, and its framework hears only
   * that one. Returns the updates recorded and the tasks moved.
   */
  async recordUpdates(
    items: Array<{ taskRef: string; update: StatusUpdate }>,
  ): Promise<{ fresh: Set<string>; moved: Map<string, TaskState> }> {
    const result: Array<{ update_uuid: string | null; moved_id: string | null; moved_state: TaskState | null }> =
      await this.dataSource.query(
        `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::uuid[], $7::timestamptz[], $9::jsonb[])
           WITH ORDINALITY AS v(task_ref, state, reason, message, source, update_uuid, at, executor_fields, ord)),
       ins AS (
         INSERT INTO task_status_updates (task_ref, state, reason, message, source, update_uuid, at, executor_fields)
         SELECT v.task_ref, v.state::task_status_update_state, v.reason, v.message, v.source, v.update_uuid, v.at, v.executor_fields
           FROM v JOIN tasks t ON t.id = v.task_ref
          WHERE NOT (t.state::text = ANY($8::text[]))
          ORDER BY v.ord
         ON CONFLICT (update_uuid) DO NOTHING RETURNING update_uuid),
       final AS (
         SELECT DISTINCT ON (v.task_ref) v.task_ref, v.state, v.executor_fields FROM v JOIN ins ON ins.update_uuid = v.update_uuid
          ORDER BY v.task_ref, (v.state = ANY($8::text[])) DESC, CASE WHEN v.state = ANY($8::text[]) THEN v.ord END, v.ord DESC),
       moved AS (
         UPDATE tasks t SET state = final.state::task_state, updated_at = now(),
                healthy = CASE WHEN final.executor_fields ? 'healthy' THEN (final.executor_fields->>'healthy')::boolean ELSE t.healthy END,
                check_status = COALESCE(final.executor_fields->'checkStatus', t.check_status) FROM final
          WHERE t.id = final.task_ref AND NOT (t.state::text = ANY($8::text[]))
          RETURNING t.id, t.state)
       SELECT update_uuid, NULL::uuid AS moved_id, NULL::text AS moved_state FROM ins
       UNION ALL SELECT NULL, id, state::text FROM moved`,
        [
          items.map((i) => i.taskRef),
          items.map((i) => i.update.state),
          items.map((i) => i.update.reason ?? null),
          items.map((i) => i.update.message ?? null),
          items.map((i) => i.update.source),
          items.map((i) => i.update.updateUuid),
          items.map((i) => new Date(i.update.timestamp)),
          [...TERMINAL_TASK_STATES],
          items.map((i) => {
            const fields = executorFieldsOf(i.update);
            return fields ? JSON.stringify(fields) : null;
          }),
        ],
      );
    const fresh = new Set<string>();
    const moved = new Map<string, TaskState>();
    for (const r of result) {
      if (r.update_uuid) fresh.add(r.update_uuid);
      if (r.moved_id && r.moved_state) moved.set(r.moved_id, r.moved_state);
    }
    return { fresh, moved };
  }

  /** Marks status updates acknowledged, each by its framework, task and update uuid (one statement). */
  /**
   * The images agents report their container tasks run (the last one given per task wins), kept
   * on the tasks and their rows. Only container tasks' updates name one: a second statement,
   * only for them.
   */
  async recordImages(items: Array<{ task: TaskEntity; update: StatusUpdate }>): Promise<void> {
    const last = new Map<string, { reference: string; digest: string }>();
    for (const { task, update } of items) {
      const image = update.container?.image;
      if (!image) continue;
      task.containerImage = image;
      last.set(task.id, image);
    }
    if (!last.size) return;
    await this.dataSource.query(
      `UPDATE tasks t SET container_image = v.image::jsonb
         FROM unnest($1::uuid[], $2::text[]) AS v(id, image)
        WHERE t.id = v.id AND t.container_image IS DISTINCT FROM v.image::jsonb`,
      [[...last.keys()], [...last.values()].map((image) => JSON.stringify(image))],
    );
  }

  /**
   * Marks status updates acknowledged, each by its framework, task and update uuid, and with each
   * the task's earlier updates not acknowledged yet: an update supersedes those before it (only
   * a task's latest unacknowledged update is sent again, see `unacknowledged`).
   */
  async acknowledge(acks: Array<{ frameworkId: string; taskId: string; updateUuid: string }>): Promise<void> {
    await this.dataSource.query(
      // The task's earlier updates through its (task_ref, at) index; \`id\` keeps the order exact.
      `UPDATE task_status_updates u SET acknowledged_at = now()
         FROM unnest($1::text[], $2::text[], $3::uuid[]) AS v(framework_id, task_id, update_uuid), task_status_updates a, tasks t
        WHERE a.update_uuid = v.update_uuid AND t.id = a.task_ref AND t.framework_id = v.framework_id AND t.task_id = v.task_id
          AND u.task_ref = a.task_ref AND u.at <= a.at AND u.id <= a.id AND u.acknowledged_at IS NULL`,
      [acks.map((a) => a.frameworkId), acks.map((a) => a.taskId), acks.map((a) => a.updateUuid)],
    );
  }

  /**
   * Status updates of these frameworks not yet acknowledged and at least `minAgeSeconds` old, oldest
   * first: of each task only its latest update (one the framework has not acknowledged), so that
   * sending them again never gives a framework an older state of a task after a newer one.
   */
  async unacknowledged(frameworkIds: string[], minAgeSeconds: number, limit = 5000): Promise<UnacknowledgedUpdate[]> {
    const rows: Array<{
      framework_id: string;
      task_id: string;
      agent_id: string;
      state: string;
      reason: string | null;
      message: string | null;
      update_uuid: string;
      at: Date;
      source: string;
      executor_fields: ExecutorFields | null;
    }> = await this.dataSource.query(
      `SELECT t.framework_id, t.task_id, t.agent_id, u.state, u.reason, u.message, u.update_uuid, u.at, u.source, u.executor_fields
         FROM task_status_updates u JOIN tasks t ON t.id = u.task_ref
        WHERE u.acknowledged_at IS NULL AND t.framework_id = ANY($1) AND u.at <= now() - make_interval(secs => $2)
          AND NOT EXISTS (SELECT 1 FROM task_status_updates later WHERE later.task_ref = u.task_ref AND later.id > u.id)
        ORDER BY u.id LIMIT ${limit}`,
      [frameworkIds, minAgeSeconds],
    );
    return rows.map((r) => ({
      frameworkId: r.framework_id,
      taskId: r.task_id,
      agentId: r.agent_id,
      state: r.state,
      reason: r.reason,
      message: r.message,
      updateUuid: r.update_uuid,
      at: new Date(r.at),
      source: r.source,
      executorFields: r.executor_fields,
    }));
  }
}

/** What operators filter the tasks' list by (`updatedSince`: ISO 8601). */
export interface TaskListFilter {
  state?: TaskState;
  frameworkId?: string;
  agentId?: string;
  reason?: string;
  updatedSince?: string;
}

/** Tasks as operators list them, newest first, with their status history. */
@Injectable()
export class TaskListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `users`: the framework users whose tasks the caller may see (the view_tasks ACL). */
  async list(
    filter: TaskListFilter & { users?: Scope },
    limit: number,
    offset: number,
  ): Promise<{ rows: TaskEntity[]; total: number; totalCapped: boolean }> {
    const q = this.dataSource.manager.createQueryBuilder(TaskEntity, 't');
    const users = frameworkUserCondition('t.framework_id', filter.users);
    if (users) q.andWhere(...users);
    if (filter.state) q.andWhere('t.state = :state', { state: filter.state });
    if (filter.frameworkId) q.andWhere('t.framework_id = :frameworkId', { frameworkId: filter.frameworkId });
    if (filter.agentId) q.andWhere('t.agent_id = :agentId', { agentId: filter.agentId });
    if (filter.updatedSince) q.andWhere('t.updated_at >= :updatedSince', { updatedSince: new Date(filter.updatedSince) });
    // The reason of the status that brought the task to its current state.
    if (filter.reason)
      q.andWhere(
        `EXISTS (SELECT 1 FROM task_status_updates u WHERE u.task_ref = t.id AND u.state::text = t.state::text AND u.reason = :reason)`,
        { reason: filter.reason },
      );
    // Every column but the command, which may hold the data handed to an executor (up to 1 MiB).
    const columns = this.dataSource.getMetadata(TaskEntity).columns.filter((c) => c.propertyName !== 'command');
    const [rows, count] = await Promise.all([
      q
        .clone()
        .select(columns.map((c) => `t.${c.propertyName}`))
        .orderBy('t.created_at', 'DESC')
        .addOrderBy('t.id', 'ASC')
        .take(limit)
        .skip(offset)
        .getMany(),
      cappedTotal(q, offset),
    ]);
    return { rows, ...count };
  }

  /** The OS user of a framework ('' when it named none) and its principal. */
  async frameworkOwner(frameworkId: string): Promise<{ user: string; principal: string }> {
    const row = await this.dataSource.manager.findOne(FrameworkEntity, {
      where: { id: frameworkId },
      select: { user: true, principal: true },
    });
    return { user: row?.user ?? '', principal: row?.principal ?? '' };
  }

  findById(id: string): Promise<TaskEntity | null> {
    return this.dataSource.manager.findOne(TaskEntity, { where: { id } });
  }

  /** A framework's task by its own id, else the newest it ran under executor `id` (Mesos's sandbox paths name executors; a command task's is its own id). */
  async findByTaskOrExecutor(frameworkId: string, id: string): Promise<TaskEntity | null> {
    const task = await this.dataSource.manager.findOne(TaskEntity, { where: { frameworkId, taskId: id } });
    return (
      task ??
      this.dataSource.manager
        .createQueryBuilder(TaskEntity, 't')
        .where('t.frameworkId = :frameworkId', { frameworkId })
        .andWhere("t.command -> 'executor' ->> 'executorId' = :id", { id })
        .orderBy('t.createdAt', 'DESC')
        .getOne()
    );
  }

  history(taskRef: string): Promise<TaskStatusUpdateEntity[]> {
    return this.dataSource.manager.find(TaskStatusUpdateEntity, { where: { taskRef }, order: { at: 'ASC', id: 'ASC' } });
  }
}
