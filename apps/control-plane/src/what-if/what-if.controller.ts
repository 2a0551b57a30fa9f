import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Requires } from '../auth/permissions';
import { CommonErrorCode } from '../errors/errors.codes';
import { ApiErrors } from '../errors/errors.dto';
import { OnLeader } from '../leadership/on-leader';
import { WhatIfRequestDto, WhatIfResultDto } from './what-if.dto';
import { WhatIfService } from './what-if.service';

@ApiTags('what-if')
@ApiBearerAuth()
@Controller('api/v1/simulate')
export class WhatIfController {
  constructor(private readonly whatIf: WhatIfService) {}

  @Post()
  @OnLeader()
  @HttpCode(200)
  @Requires('operate')
  @ApiOperation({
    summary:
      "What if: the next allocation cycles from a snapshot of the live allocator, without and with a change (weights, quota, agents, frameworks, a framework's demand); changes nothing",
  })
  @ApiOkResponse({ type: WhatIfResultDto })
  @ApiErrors(CommonErrorCode.NO_LEADER)
  run(@Body() body: WhatIfRequestDto): Promise<WhatIfResultDto> {
    return this.whatIf.run(body);
  }
}
