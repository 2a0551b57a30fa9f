import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { MachinesDto, MaintenanceStatusDto, ScheduleDto } from './maintenance.dto';
import { MaintenanceErrorCode } from './maintenance.errors';
import { MaintenanceService } from './maintenance.service';
import { Requires } from '../auth/permissions';

@ApiTags('maintenance')
@ApiBearerAuth()
@Controller('api/v1/maintenance')
export class MaintenanceController {
  constructor(private readonly maintenance: MaintenanceService) {}

  @Get('schedule')
  @Requires('read')
  @ApiOperation({ summary: 'The maintenance schedule' })
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors()
  schedule(): Promise<ScheduleDto> {
    return this.maintenance.schedule();
  }

  @Put('schedule')
  @Requires('operate', 'update_maintenance_schedule')
  @ApiOperation({ summary: 'Replace the schedule (a machine in one window at most; DOWN machines must stay)' })
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors(MaintenanceErrorCode.MAINTENANCE_DUPLICATE_MACHINE, MaintenanceErrorCode.MAINTENANCE_DOWN_MACHINE_REMOVED)
  replace(@Body() body: ScheduleDto, @CurrentActor() actor: Actor): Promise<ScheduleDto> {
    return this.maintenance.replaceSchedule(body, actor);
  }

  @Post('start')
  @Requires('operate', 'start_maintenance')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start maintenance: scheduled machines go DOWN (their agents get no offers)' })
  @ApiOkResponse({ type: MaintenanceStatusDto })
  @ApiErrors(MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_SCHEDULED, MaintenanceErrorCode.MAINTENANCE_MACHINE_ALREADY_DOWN)
  start(@Body() body: MachinesDto, @CurrentActor() actor: Actor): Promise<MaintenanceStatusDto> {
    return this.maintenance.start(body.machines, actor);
  }

  @Post('stop')
  @Requires('operate', 'stop_maintenance')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop maintenance: DOWN machines come back UP and leave the schedule' })
  @ApiOkResponse({ type: MaintenanceStatusDto })
  @ApiErrors(MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_DOWN)
  stop(@Body() body: MachinesDto, @CurrentActor() actor: Actor): Promise<MaintenanceStatusDto> {
    return this.maintenance.stop(body.machines, actor);
  }

  @Get('status')
  @Requires('read')
  @ApiOperation({ summary: "Machines' modes and frameworks' answers to inverse offers" })
  @ApiOkResponse({ type: MaintenanceStatusDto })
  @ApiErrors()
  status(): Promise<MaintenanceStatusDto> {
    return this.maintenance.status();
  }
}
