import { Body, Controller, Get, Patch, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { WhitelistChangeDto, WhitelistDto } from './whitelist.dto';
import { WhitelistService } from './whitelist.service';
import { Requires } from '../auth/permissions';

@ApiTags('whitelist')
@ApiBearerAuth()
@Controller('api/v1/whitelist')
export class WhitelistController {
  constructor(private readonly whitelist: WhitelistService) {}

  @Get()
  @Requires('read', 'view_agents')
  @ApiOperation({ summary: 'The agent whitelist' })
  @ApiOkResponse({ type: WhitelistDto })
  @ApiErrors()
  get(@CurrentActor() actor: Actor): Promise<WhitelistDto> {
    return this.whitelist.get(actor);
  }

  @Put()
  @Requires('operate', 'update_whitelist')
  @ApiOperation({ summary: 'Replace the whitelist (null: every agent; []: none)' })
  @ApiOkResponse({ type: WhitelistDto })
  @ApiErrors()
  replace(@Body() body: WhitelistDto, @CurrentActor() actor: Actor): Promise<WhitelistDto> {
    return this.whitelist.replace(body.hostnames, actor);
  }

  @Patch()
  @Requires('operate', 'update_whitelist')
  @ApiOperation({
    summary: 'Add hostnames to the whitelist or remove them (removing with no whitelist set starts one with every other present agent)',
  })
  @ApiOkResponse({ type: WhitelistDto })
  @ApiErrors()
  change(@Body() body: WhitelistChangeDto, @CurrentActor() actor: Actor): Promise<WhitelistDto> {
    return this.whitelist.change(body, actor);
  }
}
