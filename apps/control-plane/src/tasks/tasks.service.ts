/** Tasks as operators read them: lists and one task with its state history. */
import { Resources } from '@arbiter/allocator';
import { Injectable } from '@nestjs/common';
import { isTerminalTaskState } from '@arbiter/contracts';
import { AclsService } from '../acls/acls.service';
import { AuditService } from '../audit/audit.service';
import { Database } from '../database/database.service';
import { TaskKills } from './task-kills.handler';
import type { Actor } from '../auth/auth.actor';
import type { CappedPage } from '../common/pagination.dto';
import { ArbiterException } from '../errors/errors.exception';
import type { TaskEntity } from './task.entity';
import type { TaskDto } from './tasks.dto';
import { TasksErrorCode } from './tasks.errors';
import { type TaskListFilter, TaskListRepository } from './tasks.repository';

const UUID = /^[0-9a-f-]{36}$/i;

@Injectable()
export class TasksService {
  constructor(
    private readonly repo: TaskListRepository,
    private readonly acls: AclsService,
    private readonly kills: TaskKills,
    private readonly audit: AuditService,
    private readonly db: Database,
  ) {}

  /**
   * An operator's kill: SIGTERM at the agent, SIGKILL after the grace period, as a framework's
   * own kill (a task not running yet is KILLED at once). Needs the teardown_frameworks ACL on
   * the task's framework principal; audited. A task that has ended already is answered as it is.
   */
  async kill(id: string, gracePeriodSeconds: number | undefined, actor: Actor): Promise<TaskDto> {
    const row = UUID.test(id) ? await this.repo.findById(id) : null;
    if (!row) throw new ArbiterException(TasksErrorCode.TASK_NOT_FOUND, `no task with id '${id}'; GET /api/v1/tasks lists them`, { id });
    const owner = await this.repo.frameworkOwner(row.frameworkId);
    await this.acls.authorize(actor, 'view_tasks', owner.user, `kill task ${id}`);
    await this.acls.authorize(actor, 'teardown_frameworks', owner.principal, `kill task ${id}`);
    if (!isTerminalTaskState(row.state)) {
      await this.kills.killById(row.frameworkId, row.taskId, gracePeriodSeconds);
      await this.db.transaction((tx) =>
        this.audit.record(tx, actor, {
          action: 'task.kill',
          targetType: 'task',
          targetId: row.id,
          before: { state: row.state },
          after: { gracePeriodSeconds: gracePeriodSeconds ?? null },
        }),
      );
    }
    return this.get(id, actor);
  }

  /** Tasks of the frameworks whose user the view_tasks ACL lets the actor see. */
  async list(filter: TaskListFilter, limit: number, offset: number, actor: Actor): Promise<CappedPage<TaskDto>> {
    const { rows, total, totalCapped } = await this.repo.list({ ...filter, users: this.acls.scope(actor, 'view_tasks') }, limit, offset);
    return { items: rows.map(toTaskDto), total, totalCapped, limit, offset };
  }

  async get(id: string, actor: Actor): Promise<TaskDto> {
    const row = UUID.test(id) ? await this.repo.findById(id) : null;
    if (!row) throw new ArbiterException(TasksErrorCode.TASK_NOT_FOUND, `no task with id '${id}'; GET /api/v1/tasks lists them`, { id });
    await this.acls.authorize(actor, 'view_tasks', (await this.repo.frameworkOwner(row.frameworkId)).user, `view task ${id}`);
    const history = await this.repo.history(row.id);
    return {
      ...toTaskDto(row),
      history: history.map((h) => ({
        state: h.state,
        reason: h.reason,
        message: h.message,
        source: h.source,
        at: h.at.toISOString(),
        acknowledgedAt: h.acknowledgedAt?.toISOString() ?? null,
      })),
    };
  }
}

function toTaskDto(t: TaskEntity): TaskDto {
  return {
    id: t.id,
    taskId: t.taskId,
    frameworkId: t.frameworkId,
    agentId: t.agentId,
    name: t.name,
    role: t.role,
    resources: t.resources,
    resourcesText: Resources.of(t.resources).toString(),
    state: t.state,
    labels: t.labels ?? [],
    discovery: t.discovery ?? null,
    dataBytes: t.dataBytes ?? null,
    killGracePeriodSeconds: t.killGracePeriodSeconds ?? null,
    maxCompletionTimeSeconds: t.maxCompletionTimeSeconds ?? null,
    container: t.container ?? null,
    containerImage: t.containerImage ?? null,
    healthy: t.healthy ?? null,
    checkStatus: t.checkStatus ?? null,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
