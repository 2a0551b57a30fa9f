import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentsErrorCode } from '../agents/agents.errors';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { CreateReservationDto, ReservationDto, ReservationPageDto, ReservationQueryDto } from './reservations.dto';
import { ReservationsErrorCode } from './reservations.errors';
import { ReservationsService } from './reservations.service';
import { Requires } from '../auth/permissions';

@ApiTags('reservations')
@ApiBearerAuth()
@Controller('api/v1/reservations')
export class ReservationsController {
  constructor(private readonly reservations: ReservationsService) {}

  @Get()
  @Requires('read')
  @ApiOperation({ summary: 'Reservations, newest first (filter by agent and role)' })
  @ApiOkResponse({ type: ReservationPageDto })
  @ApiErrors()
  list(@Query() q: ReservationQueryDto): Promise<ReservationPageDto> {
    return this.reservations.list({ agentId: q.agentId, role: q.role }, q.limit, q.offset);
  }

  @Get(':id')
  @Requires('read')
  @ApiOperation({ summary: 'One reservation' })
  @ApiOkResponse({ type: ReservationDto })
  @ApiErrors(ReservationsErrorCode.RESERVATION_NOT_FOUND)
  get(@Param('id') id: string): Promise<ReservationDto> {
    return this.reservations.get(id);
  }

  @Post()
  @Requires('operate', 'reserve_resources')
  @ApiOperation({ summary: "Reserve an agent's free unreserved resources for a role" })
  @ApiCreatedResponse({ type: ReservationDto })
  @ApiErrors(AgentsErrorCode.AGENT_NOT_FOUND, AgentsErrorCode.AGENT_GONE, ReservationsErrorCode.RESERVATION_INSUFFICIENT_RESOURCES)
  create(@Body() body: CreateReservationDto, @CurrentActor() actor: Actor): Promise<ReservationDto> {
    return this.reservations.create(body, actor);
  }

  @Delete(':id')
  @Requires('operate', 'unreserve_resources')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unreserve (refused while the role uses the reserved resources)' })
  @ApiErrors(ReservationsErrorCode.RESERVATION_NOT_FOUND, ReservationsErrorCode.RESERVATION_IN_USE)
  remove(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.reservations.remove(id, actor);
  }
}
