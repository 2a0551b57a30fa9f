/** Executors as operators read them: lists, scoped as tasks are (the view_tasks ACL on the framework's user). */
import { Resources } from '@arbiter/allocator';
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import type { CappedPage } from '../common/pagination.dto';
import { type ExecutorEntity, ExecutorState } from './executor.entity';
import type { ExecutorDto } from './executors.dto';
import { ExecutorListRepository } from './executors.repository';

@Injectable()
export class ExecutorsService {
  constructor(
    private readonly repo: ExecutorListRepository,
    private readonly acls: AclsService,
  ) {}

  /** Executors of the frameworks whose user the view_tasks ACL lets the actor see, newest first. */
  async list(
    filter: { agentId?: string; frameworkId?: string; state?: ExecutorState },
    limit: number,
    offset: number,
    actor: Actor,
  ): Promise<CappedPage<ExecutorDto>> {
    const { rows, total, totalCapped } = await this.repo.list({ ...filter, users: this.acls.scope(actor, 'view_tasks') }, limit, offset);
    const tasks = await this.repo.tasksOf(rows);
    return { items: rows.map((r) => toExecutorDto(r, tasks.get(r.id) ?? [])), total, totalCapped, limit, offset };
  }

  /** The running executors the actor may see, as stored (Mesos's /master/state lists them with their ExecutorInfo). */
  async running(actor: Actor, limit: number): Promise<ExecutorEntity[]> {
    return this.inState(ExecutorState.RUNNING, actor, limit);
  }

  /** The ended executors the actor may see, the last started first (Mesos's completed_executors). */
  async ended(actor: Actor, limit: number): Promise<ExecutorEntity[]> {
    return this.inState(ExecutorState.ENDED, actor, limit);
  }

  private async inState(state: ExecutorState, actor: Actor, limit: number): Promise<ExecutorEntity[]> {
    const users = this.acls.scope(actor, 'view_tasks');
    return (await this.repo.list({ state, users }, limit, 0)).rows;
  }
}

export function toExecutorDto(r: ExecutorEntity, tasks: string[]): ExecutorDto {
  return {
    id: r.id,
    executorId: r.executorId,
    agentId: r.agentId,
    frameworkId: r.frameworkId,
    name: r.spec.name ?? null,
    type: r.spec.type,
    role: r.role,
    resources: r.resources,
    resourcesText: Resources.of(r.resources).toString(),
    tasks,
    state: r.state,
    startedAt: r.startedAt.toISOString(),
    endedAt: r.endedAt?.toISOString() ?? null,
    endReason: r.endReason,
    exitCode: r.exitStatus?.exitCode ?? null,
    signal: r.exitStatus?.signal ?? null,
    message: r.exitStatus?.message ?? null,
  };
}
