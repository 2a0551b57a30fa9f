import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { Requires } from '../auth/permissions';
import { CommonErrorCode } from '../errors/errors.codes';
import { ApiErrors } from '../errors/errors.dto';
import { OnLeader } from '../leadership/on-leader';
import { WhatIfRequestDto, WhatIfResultDto } from './what-if.dto';
import { WhatIfErrorCode } from './what-if.errors';
import { WhatIfService } from './what-if.service';

@ApiTags('what-if')
@ApiBearerAuth()
@Controller('api/v1/simulate')
export class WhatIfController {
  constructor(private readonly whatIf: WhatIfService) {}

  @Post()
  @OnLeader()
  @HttpCode(200)
  @Requires('operate', 'simulate')
  @ApiOperation({
    summary:
      "What if: the next allocation cycles from a snapshot of the live allocator, without and with a change (weights, quota, agents, frameworks, a framework's demand); changes nothing",
    description:
      'Runs in a worker thread, one simulation at a time unless ARBITER_SIMULATIONS allows more (429 SIMULATION_BUSY beyond); ' +
      'at most 10,000 added agents and 100 added frameworks (400 SIMULATION_TOO_LARGE); the simulate ACL on the roles the change names.',
  })
  @ApiOkResponse({ type: WhatIfResultDto })
  @ApiErrors(CommonErrorCode.NO_LEADER, WhatIfErrorCode.SIMULATION_TOO_LARGE, WhatIfErrorCode.SIMULATION_BUSY, AuthErrorCode.FORBIDDEN)
  run(@Body() body: WhatIfRequestDto, @CurrentActor() actor: Actor): Promise<WhatIfResultDto> {
    return this.whatIf.run(body, actor);
  }
}
