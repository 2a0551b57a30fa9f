/** Tasks as operators read them: lists and one task with its state history. */
import { Resources } from '@arbiter/allocator';
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import type { CappedPage } from '../common/pagination.dto';
import { ArbiterException } from '../errors/errors.exception';
import type { TaskEntity, TaskState } from './task.entity';
import type { TaskDto } from './tasks.dto';
import { TasksErrorCode } from './tasks.errors';
import { TaskListRepository } from './tasks.repository';

const UUID = /^[0-9a-f-]{36}$/i;

@Injectable()
export class TasksService {
  constructor(
    private readonly repo: TaskListRepository,
    private readonly acls: AclsService,
  ) {}

  /** Tasks of the frameworks whose user the view_tasks ACL lets the actor see. */
  async list(
    filter: { state?: TaskState; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
    actor: Actor,
  ): Promise<CappedPage<TaskDto>> {
    const { rows, total, totalCapped } = await this.repo.list({ ...filter, users: this.acls.scope(actor, 'view_tasks') }, limit, offset);
    return { items: rows.map(toTaskDto), total, totalCapped, limit, offset };
  }

  async get(id: string, actor: Actor): Promise<TaskDto> {
    const row = UUID.test(id) ? await this.repo.findById(id) : null;
    if (!row) throw new ArbiterException(TasksErrorCode.TASK_NOT_FOUND, `no task with id '${id}'; GET /api/v1/tasks lists them`, { id });
    await this.acls.authorize(actor, 'view_tasks', await this.repo.frameworkUser(row.frameworkId), `view task ${id}`);
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
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
