import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Requires } from '../auth/permissions';
import { ApiErrors } from '../errors/errors.dto';
import { ExplainDto, ExplainQueryDto } from '../frameworks/frameworks.dto';
import { FrameworksErrorCode } from '../frameworks/frameworks.errors';
import { FrameworksService } from '../frameworks/frameworks.service';
import { FrameworkExplainService } from './framework-explain.service';

@ApiTags('frameworks')
@ApiBearerAuth()
@Controller('api/v1/frameworks')
export class ExplainController {
  constructor(
    private readonly explainer: FrameworkExplainService,
    private readonly frameworks: FrameworksService,
  ) {}

  @Get(':id/explain')
  @Requires('read')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Why the framework got, or did not get, offers in recent cycles (plain words and data)' })
  @ApiOkResponse({ type: ExplainDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND)
  async explain(@Param('id') id: string, @Query() q: ExplainQueryDto, @CurrentActor() actor: Actor): Promise<ExplainDto> {
    // The view_frameworks ACL applies (and an unknown id answers 404 here).
    await this.frameworks.get(id, actor);
    return this.explainer.explain(id, q.cycles);
  }
}
