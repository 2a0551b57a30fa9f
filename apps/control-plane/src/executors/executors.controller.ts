import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Coalesced } from '../app/coalesce';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Requires } from '../auth/permissions';
import { ApiErrors } from '../errors/errors.dto';
import { ExecutorListQueryDto, ExecutorPageDto } from './executors.dto';
import { ExecutorsService } from './executors.service';

@ApiTags('executors')
@ApiBearerAuth()
@Controller('api/v1/executors')
export class ExecutorsController {
  constructor(private readonly executors: ExecutorsService) {}

  @Get()
  @Coalesced()
  @Requires('read', 'view_tasks')
  @ApiOperation({
    summary:
      'Executors, newest first (filter by agent, framework, state); a principal sees those of the frameworks whose tasks it may view',
  })
  @ApiOkResponse({ type: ExecutorPageDto })
  @ApiErrors()
  list(@Query() q: ExecutorListQueryDto, @CurrentActor() actor: Actor): Promise<ExecutorPageDto> {
    return this.executors.list({ agentId: q.agentId, frameworkId: q.frameworkId, state: q.state }, q.limit, q.offset, actor);
  }
}
