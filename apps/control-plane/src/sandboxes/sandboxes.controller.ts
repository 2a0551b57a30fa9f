import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrors } from '../errors/errors.dto';
import { CommonErrorCode } from '../errors/errors.codes';
import { OnLeader } from '../leadership/on-leader';
import { Requires } from '../auth/permissions';
import { TasksErrorCode } from '../tasks/tasks.errors';
import { FileDownloadQueryDto, FilesBrowseDto, FilesBrowseQueryDto, FilesReadDto, FilesReadQueryDto } from './sandboxes.dto';
import { SandboxesErrorCode } from './sandboxes.errors';
import { SandboxesService } from './sandboxes.service';

const ERRORS = [
  TasksErrorCode.TASK_NOT_FOUND,
  SandboxesErrorCode.SANDBOX_UNREACHABLE,
  SandboxesErrorCode.SANDBOX_PATH_INVALID,
  SandboxesErrorCode.SANDBOX_FILE_NOT_FOUND,
] as const;

/** A task's sandbox on its agent; each route needs the view_tasks and access_sandboxes ACLs on the task's framework user. */
@ApiTags('tasks')
@ApiBearerAuth()
@Controller('api/v1/tasks')
export class SandboxesController {
  constructor(private readonly sandboxes: SandboxesService) {}

  @Get(':id/files')
  @OnLeader()
  @Requires('read', 'access_sandboxes')
  @ApiOperation({
    summary:
      "A directory of the task's sandbox (Mesos's /files/browse; needs the view_tasks and access_sandboxes ACLs), and where its logs are",
  })
  @ApiOkResponse({ type: FilesBrowseDto })
  @ApiErrors(...ERRORS, CommonErrorCode.NO_LEADER)
  browse(@Param('id') id: string, @Query() q: FilesBrowseQueryDto, @CurrentActor() actor: Actor): Promise<FilesBrowseDto> {
    return this.sandboxes.browse(id, q.path, actor);
  }

  @Get(':id/files/read')
  @OnLeader()
  @Requires('read', 'access_sandboxes')
  @ApiOperation({
    summary:
      "Bytes of a file in the task's sandbox from an offset (Mesos's /files/read: offset -1 answers the size); follow a log by reading again from offset + length",
  })
  @ApiOkResponse({ type: FilesReadDto })
  @ApiErrors(...ERRORS, SandboxesErrorCode.SANDBOX_NOT_A_FILE, CommonErrorCode.NO_LEADER)
  read(@Param('id') id: string, @Query() q: FilesReadQueryDto, @CurrentActor() actor: Actor): Promise<FilesReadDto> {
    return this.sandboxes.read(id, q, actor);
  }

  @Get(':id/files/download')
  @Requires('read', 'access_sandboxes')
  @ApiOperation({ summary: "A whole file of the task's sandbox, as an attachment (served by the leader, to which the agents connect)" })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  @ApiErrors(...ERRORS, SandboxesErrorCode.SANDBOX_NOT_A_FILE)
  async download(
    @Param('id') id: string,
    @Query() q: FileDownloadQueryDto,
    @CurrentActor() actor: Actor,
    @Res() res: Response,
  ): Promise<void> {
    const name = q.path.split('/').filter(Boolean).pop() ?? 'file';
    try {
      await this.sandboxes.download(id, q.path, actor, {
        start: () => {
          res.status(200);
          res.setHeader('Content-Type', 'application/octet-stream');
          res.setHeader('Content-Disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`);
        },
        write: (chunk) => new Promise<void>((resolve) => (res.write(chunk) ? resolve() : res.once('drain', resolve))),
      });
      res.end();
    } catch (err) {
      // Refused before the first byte: the error answer as usual. Cut off midway: the connection is.
      if (!res.headersSent) throw err;
      res.destroy(err as Error);
    }
  }
}
