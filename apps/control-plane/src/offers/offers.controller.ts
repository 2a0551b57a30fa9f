import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { OfferListQueryDto, OfferPageDto } from './offers.dto';
import { OffersService } from './offers.service';
import { Requires } from '../auth/permissions';

@ApiTags('offers')
@ApiBearerAuth()
@Controller('api/v1/offers')
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  @Get()
  @Requires('read', 'view_frameworks')
  @ApiOperation({ summary: 'Offers, newest first (filter by state, framework, agent)' })
  @ApiOkResponse({ type: OfferPageDto })
  @ApiErrors()
  list(@Query() q: OfferListQueryDto, @CurrentActor() actor: Actor): Promise<OfferPageDto> {
    return this.offers.list({ state: q.state, frameworkId: q.frameworkId, agentId: q.agentId }, q.limit, q.offset, actor);
  }
}
