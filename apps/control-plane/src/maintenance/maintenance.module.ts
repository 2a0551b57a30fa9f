/**
 * Maintenance primitives, as in Mesos: a schedule of windows, each with machines and an
 * unavailability (start, duration). Scheduled machines are DRAINING (frameworks with tasks
 * there get inverse offers); `start` takes machines DOWN (no offers), `stop` brings them back
 * UP and out of the schedule. Machines are matched to agents by hostname.
 */
import { isIP } from 'node:net';
import { Body, Controller, Get, HttpCode, Injectable, Module, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { EntityManager } from 'typeorm';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { Database, lockDomain, LockDomain } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ApiErrors } from '../errors/errors.dto';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../events/cluster-events';
import { InverseOfferResponseEntity } from './inverse-offer-response.entity';
import { MachineMode, MaintenanceMachineEntity } from './maintenance-machine.entity';
import { MaintenanceWindowEntity } from './maintenance-window.entity';
import { MaintenanceErrorCode } from './maintenance.errors';

export class MachineDto {
  @ApiPropertyOptional({ example: 'node-1' }) @IsOptional() @MaxLength(253) @IsString() hostname?: string;
  @ApiPropertyOptional({ example: '10.0.0.5' }) @IsOptional() @MaxLength(45) @IsString() ip?: string;
}

export class UnavailabilityDto {
  @ApiProperty({ example: '2026-12-01T02:00:00Z' })
  @IsISO8601({ strict: true }, { message: 'start must be an ISO 8601 date-time, e.g. 2026-12-01T02:00:00Z' })
  start!: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'seconds; absent or null: until maintenance is stopped',
    minimum: 0,
    maximum: 31_536_000,
  })
  @IsOptional()
  @Min(0, { message: 'durationSeconds must not be negative' })
  @Max(31_536_000, { message: 'durationSeconds must be at most a year (31536000)' })
  @IsInt({ message: 'durationSeconds must be a whole number of seconds' })
  durationSeconds?: number | null;
}

export class WindowDto {
  @ApiProperty({ type: [MachineDto] })
  @ValidateNested({ each: true })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1, { message: 'a window needs at least one machine' })
  @IsArray()
  @Type(() => MachineDto)
  machines!: MachineDto[];

  @ApiProperty({ type: UnavailabilityDto })
  @ValidateNested()
  @Type(() => UnavailabilityDto)
  unavailability!: UnavailabilityDto;
}

export class ScheduleDto {
  @ApiProperty({ type: [WindowDto] })
  @ValidateNested({ each: true })
  @ArrayMaxSize(10_000)
  @IsArray()
  @Type(() => WindowDto)
  windows!: WindowDto[];
}

export class MachinesDto {
  @ApiProperty({ type: [MachineDto] })
  @ValidateNested({ each: true })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1, { message: 'name at least one machine' })
  @IsArray()
  @Type(() => MachineDto)
  machines!: MachineDto[];
}

export class MachineIdDto {
  @ApiProperty() hostname!: string;
  @ApiProperty() ip!: string;
}

export class InverseOfferStatusDto {
  @ApiProperty() frameworkId!: string;
  @ApiProperty({ enum: ['UNKNOWN', 'ACCEPT', 'DECLINE'] }) status!: string;
  @ApiProperty() updatedAt!: string;
}

export class DrainingMachineDto {
  @ApiProperty({ type: MachineIdDto }) machine!: MachineIdDto;
  @ApiProperty({ type: [InverseOfferStatusDto] }) statuses!: InverseOfferStatusDto[];
}

export class MaintenanceStatusDto {
  @ApiProperty({ type: [DrainingMachineDto] }) drainingMachines!: DrainingMachineDto[];
  @ApiProperty({ type: [MachineIdDto] }) downMachines!: MachineIdDto[];
}

type MachineId = { hostname: string; ip: string };
const key = (m: MachineId) => `${m.hostname}\u0000${m.ip}`;
const show = (m: MachineId) => (m.hostname && m.ip ? `${m.hostname} (${m.ip})` : m.hostname || m.ip);

/** A machine id from input: at least a hostname or an IP; the IP must be valid. */
export function machineId(m: MachineDto, field: string): MachineId {
  const hostname = (m.hostname ?? '').trim();
  const ip = (m.ip ?? '').trim();
  const bad = (problem: string) =>
    new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${field} ${problem}`, {
      errors: [{ field, problems: [problem] }],
    });
  if (!hostname && !ip) throw bad('needs a hostname or an ip');
  if (hostname && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(hostname)) throw bad(`hostname '${hostname}' is not a valid hostname`);
  if (ip && !isIP(ip)) throw bad(`ip '${ip}' is not an IPv4 or IPv6 address`);
  return { hostname, ip };
}

@Injectable()
export class MaintenanceService {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
  ) {}

  async schedule(tx: EntityManager = this.db.manager): Promise<ScheduleDto> {
    const windows = await tx.find(MaintenanceWindowEntity, { order: { position: 'ASC' } });
    const machines = await tx.find(MaintenanceMachineEntity, { order: { hostname: 'ASC', ip: 'ASC' } });
    return {
      windows: windows.map((w) => ({
        machines: machines.filter((m) => m.windowId === w.id).map((m) => ({ hostname: m.hostname, ip: m.ip })),
        unavailability: { start: w.startAt.toISOString(), durationSeconds: w.durationSeconds },
      })),
    };
  }

  async replaceSchedule(input: ScheduleDto, actor: Actor): Promise<ScheduleDto> {
    const seen = new Map<string, number>();
    const windows = input.windows.map((w, i) => ({
      start: new Date(w.unavailability.start),
      durationSeconds: w.unavailability.durationSeconds ?? null,
      machines: w.machines.map((m, j) => {
        const id = machineId(m, `windows.${i}.machines.${j}`);
        const earlier = seen.get(key(id));
        if (earlier !== undefined) {
          throw new ArbiterException(
            MaintenanceErrorCode.MAINTENANCE_DUPLICATE_MACHINE,
            `machine ${show(id)} appears in window ${earlier}${earlier === i ? ' twice' : ` and in window ${i}`}; a machine may be in one window only`,
            { machine: id, windows: [earlier, i] },
          );
        }
        seen.set(key(id), i);
        return id;
      }),
    }));
    const after = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.MAINTENANCE);
      const before = await this.schedule(tx);
      const existing = new Map((await tx.find(MaintenanceMachineEntity)).map((m) => [key(m), m]));
      for (const m of existing.values()) {
        if (m.mode === MachineMode.DOWN && !seen.has(key(m))) {
          throw new ArbiterException(
            MaintenanceErrorCode.MAINTENANCE_DOWN_MACHINE_REMOVED,
            `machine ${show(m)} is DOWN; stop its maintenance before removing it from the schedule`,
            { machine: { hostname: m.hostname, ip: m.ip } },
          );
        }
      }
      await tx.query('DELETE FROM maintenance_machines');
      await tx.query('DELETE FROM maintenance_windows');
      for (const [position, w] of windows.entries()) {
        const saved = await tx.save(tx.create(MaintenanceWindowEntity, { position, startAt: w.start, durationSeconds: w.durationSeconds }));
        for (const m of w.machines) {
          const prev = existing.get(key(m));
          await tx.insert(MaintenanceMachineEntity, {
            hostname: m.hostname,
            ip: m.ip,
            windowId: saved.id,
            mode: prev?.mode ?? MachineMode.DRAINING,
            downSince: prev?.downSince ?? null,
          });
        }
      }
      // Answers to inverse offers concern machines still scheduled only.
      for (const m of existing.values())
        if (!seen.has(key(m))) await tx.delete(InverseOfferResponseEntity, { hostname: m.hostname, ip: m.ip });
      const after = await this.schedule(tx);
      await this.audit.record(tx, actor, {
        action: 'maintenance.schedule.update',
        targetType: 'maintenance',
        targetId: null,
        before,
        after,
      });
      return after;
    });
    this.events.emit({ type: 'maintenance.updated' });
    return after;
  }

  async start(machines: MachineDto[], actor: Actor): Promise<MaintenanceStatusDto> {
    return this.setMode(machines, actor, 'maintenance.start', (m, id) => {
      if (!m)
        throw new ArbiterException(
          MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_SCHEDULED,
          `machine ${show(id)} is not in the maintenance schedule; schedule it first`,
          { machine: id },
        );
      if (m.mode === MachineMode.DOWN)
        throw new ArbiterException(MaintenanceErrorCode.MAINTENANCE_MACHINE_ALREADY_DOWN, `machine ${show(id)} is already DOWN`, {
          machine: id,
        });
      return 'down';
    });
  }

  async stop(machines: MachineDto[], actor: Actor): Promise<MaintenanceStatusDto> {
    return this.setMode(machines, actor, 'maintenance.stop', (m, id) => {
      if (m?.mode !== MachineMode.DOWN)
        throw new ArbiterException(
          MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_DOWN,
          `machine ${show(id)} is not DOWN${m ? ` (it is ${m.mode})` : ''}; only DOWN machines can leave maintenance`,
          { machine: id },
        );
      return 'up';
    });
  }

  private async setMode(
    input: MachineDto[],
    actor: Actor,
    action: string,
    check: (m: MaintenanceMachineEntity | null, id: MachineId) => 'down' | 'up',
  ): Promise<MaintenanceStatusDto> {
    const ids = input.map((m, i) => machineId(m, `machines.${i}`));
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.MAINTENANCE);
      const before = await this.status(tx);
      const now = new Date();
      for (const id of ids) {
        const m = await tx.findOne(MaintenanceMachineEntity, { where: { hostname: id.hostname, ip: id.ip } });
        if (check(m, id) === 'down')
          await tx.update(MaintenanceMachineEntity, { hostname: id.hostname, ip: id.ip }, { mode: MachineMode.DOWN, downSince: now });
        else {
          await tx.delete(MaintenanceMachineEntity, { hostname: id.hostname, ip: id.ip });
          await tx.delete(InverseOfferResponseEntity, { hostname: id.hostname, ip: id.ip });
        }
      }
      // Windows left without machines leave the schedule.
      await tx.query('DELETE FROM maintenance_windows w WHERE NOT EXISTS (SELECT 1 FROM maintenance_machines m WHERE m.window_id = w.id)');
      await this.audit.record(tx, actor, { action, targetType: 'maintenance', targetId: null, before, after: await this.status(tx) });
    });
    this.events.emit({ type: 'maintenance.updated' });
    return this.status();
  }

  async status(tx: EntityManager = this.db.manager): Promise<MaintenanceStatusDto> {
    const machines = await tx.find(MaintenanceMachineEntity, { order: { hostname: 'ASC', ip: 'ASC' } });
    const responses = await tx.find(InverseOfferResponseEntity);
    return {
      drainingMachines: machines
        .filter((m) => m.mode === MachineMode.DRAINING)
        .map((m) => ({
          machine: { hostname: m.hostname, ip: m.ip },
          statuses: responses
            .filter((r) => r.hostname === m.hostname && r.ip === m.ip)
            .map((r) => ({ frameworkId: r.frameworkId, status: r.status, updatedAt: r.updatedAt.toISOString() })),
        })),
      downMachines: machines.filter((m) => m.mode === MachineMode.DOWN).map((m) => ({ hostname: m.hostname, ip: m.ip })),
    };
  }
}

@ApiTags('maintenance')
@ApiBearerAuth()
@Controller('api/v1/maintenance')
export class MaintenanceController {
  constructor(private readonly maintenance: MaintenanceService) {}

  @Get('schedule')
  @ApiOperation({ summary: 'The maintenance schedule' })
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors()
  schedule(): Promise<ScheduleDto> {
    return this.maintenance.schedule();
  }

  @Put('schedule')
  @ApiOperation({ summary: 'Replace the schedule (a machine in one window at most; DOWN machines must stay)' })
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors(MaintenanceErrorCode.MAINTENANCE_DUPLICATE_MACHINE, MaintenanceErrorCode.MAINTENANCE_DOWN_MACHINE_REMOVED)
  replace(@Body() body: ScheduleDto, @CurrentActor() actor: Actor): Promise<ScheduleDto> {
    return this.maintenance.replaceSchedule(body, actor);
  }

  @Post('start')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start maintenance: scheduled machines go DOWN (their agents get no offers)' })
  @ApiOkResponse({ type: MaintenanceStatusDto })
  @ApiErrors(MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_SCHEDULED, MaintenanceErrorCode.MAINTENANCE_MACHINE_ALREADY_DOWN)
  start(@Body() body: MachinesDto, @CurrentActor() actor: Actor): Promise<MaintenanceStatusDto> {
    return this.maintenance.start(body.machines, actor);
  }

  @Post('stop')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop maintenance: DOWN machines come back UP and leave the schedule' })
  @ApiOkResponse({ type: MaintenanceStatusDto })
  @ApiErrors(MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_DOWN)
  stop(@Body() body: MachinesDto, @CurrentActor() actor: Actor): Promise<MaintenanceStatusDto> {
    return this.maintenance.stop(body.machines, actor);
  }

  @Get('status')
  @ApiOperation({ summary: "Machines' modes and frameworks' answers to inverse offers" })
  @ApiOkResponse({ type: MaintenanceStatusDto })
  @ApiErrors()
  status(): Promise<MaintenanceStatusDto> {
    return this.maintenance.status();
  }
}

@Module({ controllers: [MaintenanceController], providers: [MaintenanceService] })
export class MaintenanceModule {}
