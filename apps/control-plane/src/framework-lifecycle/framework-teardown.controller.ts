/** The operator's framework teardown (POST /api/v1/frameworks/:id/teardown): the framework's removal, as its own teardown is. */
import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Requires } from '../auth/permissions';
import { ApiErrors } from '../errors/errors.dto';
import { CommonErrorCode } from '../errors/errors.codes';
import { FrameworkDto } from '../frameworks/frameworks.dto';
import { FrameworksErrorCode } from '../frameworks/frameworks.errors';
import { OnLeader } from '../leadership/on-leader';
import { FrameworkTeardown } from './framework-teardown.service';

@ApiTags('frameworks')
@ApiBearerAuth()
@Controller('api/v1/frameworks')
export class FrameworkTeardownController {
  constructor(private readonly frameworks: FrameworkTeardown) {}

  @Post(':id/teardown')
  @OnLeader()
  @Requires('operate', 'teardown_frameworks')
  @HttpCode(200)
  // The operation keeps the id it had beside the frameworks' reads.
  @ApiOperation({ operationId: 'Frameworks_teardown', summary: 'Tear the framework down: its tasks are killed and it cannot re-subscribe' })
  @ApiOkResponse({ type: FrameworkDto })
  @ApiErrors(FrameworksErrorCode.FRAMEWORK_NOT_FOUND, CommonErrorCode.NO_LEADER)
  teardown(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<FrameworkDto> {
    return this.frameworks.teardown(id, actor);
  }
}
