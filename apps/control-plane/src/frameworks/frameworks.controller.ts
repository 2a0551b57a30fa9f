import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { FrameworkDto, FrameworkListQueryDto, FrameworkPageDto } from './frameworks.dto';
import { FrameworksErrorCode } from './frameworks.errors';
import { FrameworksService } from './frameworks.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';

@ApiTags('frameworks')
@ApiBearerAuth()
@Controller('api/v1/frameworks')
export class FrameworksController {
  constructor(private readonly frameworks: FrameworksService) {}

  @Get()
  @Coalesced()
  @Requires('read')
  @ApiOperation({ summary: 'List frameworks with their roles, tasks, offers and dominant share' })
  @ApiOkResponse({ type: FrameworkPageDto })
  @ApiErrors()
  list(@Query() q: FrameworkListQueryDto, @CurrentActor() actor: Actor): Promise<FrameworkPageDto> {
    return this.frameworks.list({ state: q.state, role: q.role }, q.limit, q.offset, actor);
  }

  @Get(':id')
  @Requires('read')
  @ApiOperation({ summary: 'One framework' })
  @ApiOkResponse({ type: FrameworkDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND)
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<FrameworkDto> {
    return this.frameworks.get(id, actor);
  }
}
