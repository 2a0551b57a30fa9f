import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { FILES_READ_MAX, SANDBOX_PATH_MAX } from '@arbiter/contracts';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Requires } from '../auth/permissions';
import { OnLeader } from '../leadership/on-leader';
import { SandboxesService } from './sandboxes.service';

class MesosFilesQueryDto {
  @MaxLength(SANDBOX_PATH_MAX)
  @MinLength(1)
  @IsString()
  path!: string;

  @IsOptional()
  @Type(() => Number)
  @Min(-1)
  @Max(Number.MAX_SAFE_INTEGER)
  @IsInt({ message: 'offset must be a whole number' })
  offset?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(-1)
  @Max(Number.MAX_SAFE_INTEGER)
  @IsInt({ message: 'length must be a whole number' })
  length?: number;
}

/**
 * Mesos's sandbox endpoints, as an agent serves them (Mesos's JSON, not in the OpenAPI
 * document): `/files/browse` and `/files/read` on the agent's path of a sandbox,
 * `/frameworks/F/executors/E/runs/latest[/PATH]` (a command task's executor id is its task id),
 * relayed to the task's agent under the view_tasks and access_sandboxes ACLs as
 * `/api/v1/tasks/{id}/files` is. `read` without an offset answers the size (`{ data: "", offset }`).
 */
@ApiExcludeController()
@Controller('files')
export class MesosFilesController {
  constructor(private readonly sandboxes: SandboxesService) {}

  @Get(['browse', 'browse.json'])
  @OnLeader()
  @Requires('read', 'access_sandboxes')
  browse(@Query() q: MesosFilesQueryDto, @CurrentActor() actor: Actor): Promise<Array<Record<string, unknown>>> {
    return this.sandboxes.mesosBrowse(q.path, actor);
  }

  @Get(['read', 'read.json'])
  @OnLeader()
  @Requires('read', 'access_sandboxes')
  read(@Query() q: MesosFilesQueryDto, @CurrentActor() actor: Actor): Promise<{ data: string; offset: number }> {
    // Mesos: a length of -1 (or none) reads what one answer holds.
    const length = q.length === undefined || q.length < 0 ? undefined : Math.min(q.length, FILES_READ_MAX);
    return this.sandboxes.mesosRead(q.path, q.offset ?? -1, length, actor);
  }
}
