/**
 * Dynamic reservations (Mesos's RESERVE_RESOURCES / UNRESERVE_RESOURCES): an agent's free,
 * unreserved resources set aside for a role. Reserving takes only what is free (not reserved,
 * not used by live tasks or outstanding offers); unreserving is refused while the role uses
 * the reserved resources on that agent. Checks and changes run under one advisory lock, so
 * concurrent requests cannot both take the last free cpus.
 */
import { Body, Controller, Delete, Get, HttpCode, Injectable, Module, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { EntityManager } from 'typeorm';
import { Resources } from '@arbiter/allocator';
import { AgentEntity, AgentStatus } from '../agents/agent.entity';
import { AgentsErrorCode } from '../agents/agents.errors';
import { AllocationUsageRepository } from '../allocation/allocation-usage.repository';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { type Page, PageQueryDto } from '../common/pagination.dto';
import { IsResources, parseResourcesWithRule, RESOURCES_INPUT_SCHEMA, ResourceEntryDto } from '../common/resources.dto';
import { Database, lockDomain, LockDomain } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ApiErrors } from '../errors/errors.dto';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../events/cluster-events';
import { checkRole } from '../roles/roles.module';
import { ReservationEntity } from './reservation.entity';
import { ReservationsErrorCode } from './reservations.errors';

export class ReservationQueryDto extends PageQueryDto {
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() role?: string;
}

export class CreateReservationDto {
  @ApiProperty() @MaxLength(255) @IsString() agentId!: string;
  @ApiProperty({ example: 'eng' }) @MaxLength(255) @IsString() role!: string;
  @ApiProperty({ ...RESOURCES_INPUT_SCHEMA, description: 'unreserved resources to reserve, e.g. "cpus:2;mem:4096"' })
  @IsResources({ unreservedOnly: true, nonEmpty: true })
  resources!: unknown;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { team: 'ml' } })
  @IsOptional()
  @IsObject({ message: 'labels must be an object of strings' })
  labels?: Record<string, string>;
}

export class ReservationDto {
  @ApiProperty() id!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() role!: string;
  @ApiProperty({ type: [ResourceEntryDto] }) resources!: ResourceEntryDto[];
  @ApiProperty({ example: 'cpus(eng):2;mem(eng):4096' }) resourcesText!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ description: 'who reserved: an operator or framework:<id>' }) principal!: string;
  @ApiProperty() createdAt!: string;
}

export class ReservationPageDto {
  @ApiProperty({ type: [ReservationDto] }) items!: ReservationDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

const toDto = (r: ReservationEntity): ReservationDto => ({
  id: r.id,
  agentId: r.agentId,
  role: r.role,
  resources: r.resources,
  resourcesText: Resources.of(r.resources).toString(),
  labels: r.labels,
  principal: r.principal,
  createdAt: r.createdAt.toISOString(),
});

@Injectable()
export class ReservationsService {
  constructor(
    private readonly db: Database,
    private readonly usage: AllocationUsageRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
  ) {}

  async list(filter: { agentId?: string; role?: string }, limit: number, offset: number): Promise<Page<ReservationDto>> {
    const where = { ...(filter.agentId ? { agentId: filter.agentId } : {}), ...(filter.role ? { role: filter.role } : {}) };
    const [rows, total] = await this.db.manager.findAndCount(ReservationEntity, {
      where,
      order: { createdAt: 'DESC', id: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { items: rows.map(toDto), total, limit, offset };
  }

  async get(id: string): Promise<ReservationDto> {
    return toDto(await this.require(this.db.manager, id));
  }

  private async require(tx: EntityManager, id: string): Promise<ReservationEntity> {
    const row = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
      ? await tx.findOne(ReservationEntity, { where: { id } })
      : null;
    if (!row)
      throw new ArbiterException(
        ReservationsErrorCode.RESERVATION_NOT_FOUND,
        `no reservation with id '${id}'; GET /api/v1/reservations lists them`,
        { id },
      );
    return row;
  }

  /**
   * What is free to reserve on an agent: unreserved total minus reservations and what live tasks
   * use. Resources in outstanding offers count as free: the allocation loop rescinds the
   * agent's offers when its reservations change (as Mesos does for operator reservations).
   */
  async free(tx: EntityManager, agent: AgentEntity): Promise<Resources> {
    let free = Resources.of(agent.resources).unreserved();
    for (const r of await tx.find(ReservationEntity, { where: { agentId: agent.id } }))
      free = free.minus(Resources.of(r.resources).withReservation(undefined));
    for (const u of await this.usage.liveTasks(tx, { agentId: agent.id })) free = free.minus(Resources.of(u.resources).unreserved());
    return free;
  }

  async create(input: CreateReservationDto, actor: Actor): Promise<ReservationDto> {
    const role = checkRole(input.role, 'role');
    const wanted = parseResourcesWithRule(input.resources, { unreservedOnly: true, nonEmpty: true });
    const labels = input.labels ?? {};
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v !== 'string' || k.length > 128 || v.length > 1024)
        throw new ArbiterException(
          CommonErrorCode.VALIDATION_FAILED,
          `invalid request: labels.${k} must be a string of at most 1024 characters`,
          { errors: [{ field: `labels.${k}`, problems: ['must be a string'] }] },
        );
    }
    const saved = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      const agent = await tx.findOne(AgentEntity, { where: { id: input.agentId } });
      if (!agent)
        throw new ArbiterException(AgentsErrorCode.AGENT_NOT_FOUND, `no agent with id '${input.agentId}'; GET /api/v1/agents lists them`, {
          agentId: input.agentId,
        });
      if (agent.status === AgentStatus.GONE)
        throw new ArbiterException(AgentsErrorCode.AGENT_GONE, `agent ${agent.id} (${agent.hostname}) is marked gone`, {
          agentId: agent.id,
        });
      const free = await this.free(tx, agent);
      if (!free.contains(wanted)) {
        throw new ArbiterException(
          ReservationsErrorCode.RESERVATION_INSUFFICIENT_RESOURCES,
          `agent ${agent.hostname} has ${free.toString() || 'nothing'} free to reserve; ${wanted.toString()} does not fit`,
          { requested: wanted.toString(), free: free.toString() },
        );
      }
      const row = await tx.save(
        tx.create(ReservationEntity, {
          agentId: agent.id,
          role,
          resources: wanted.withReservation(role).toJSON(),
          labels,
          principal: actor.name,
          createdAt: new Date(),
        }),
      );
      await this.audit.record(tx, actor, {
        action: 'reservation.create',
        targetType: 'reservation',
        targetId: row.id,
        before: null,
        after: toDto(row),
      });
      return row;
    });
    this.events.emit({ type: 'reservation.created', agentId: saved.agentId, reservationId: saved.id });
    return toDto(saved);
  }

  async remove(id: string, actor: Actor): Promise<void> {
    const removed = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      const row = await this.require(tx, id);
      // What the role uses of its reservations on this agent must still fit in what remains.
      const remaining = (await tx.find(ReservationEntity, { where: { agentId: row.agentId, role: row.role } }))
        .filter((r) => r.id !== row.id)
        .reduce((s, r) => s.plus(Resources.of(r.resources)), Resources.empty());
      const inUse = (await this.usage.liveTasks(tx, { agentId: row.agentId })).reduce(
        (s, u) => s.plus(Resources.of(u.resources).reserved(row.role)),
        Resources.empty(),
      );
      if (!inUse.isEmpty() && !remaining.contains(inUse)) {
        throw new ArbiterException(
          ReservationsErrorCode.RESERVATION_IN_USE,
          `role '${row.role}' uses ${inUse.toString()} of its reservations on this agent; kill those tasks before unreserving`,
          { inUse: inUse.toString() },
        );
      }
      await tx.delete(ReservationEntity, { id: row.id });
      await this.audit.record(tx, actor, {
        action: 'reservation.remove',
        targetType: 'reservation',
        targetId: row.id,
        before: toDto(row),
        after: null,
      });
      return row;
    });
    this.events.emit({ type: 'reservation.removed', agentId: removed.agentId, reservationId: removed.id });
  }
}

@ApiTags('reservations')
@ApiBearerAuth()
@Controller('api/v1/reservations')
export class ReservationsController {
  constructor(private readonly reservations: ReservationsService) {}

  @Get()
  @ApiOperation({ summary: 'Reservations, newest first (filter by agent and role)' })
  @ApiOkResponse({ type: ReservationPageDto })
  @ApiErrors()
  list(@Query() q: ReservationQueryDto): Promise<ReservationPageDto> {
    return this.reservations.list({ agentId: q.agentId, role: q.role }, q.limit, q.offset);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One reservation' })
  @ApiOkResponse({ type: ReservationDto })
  @ApiErrors(ReservationsErrorCode.RESERVATION_NOT_FOUND)
  get(@Param('id') id: string): Promise<ReservationDto> {
    return this.reservations.get(id);
  }

  @Post()
  @ApiOperation({ summary: "Reserve an agent's free unreserved resources for a role" })
  @ApiCreatedResponse({ type: ReservationDto })
  @ApiErrors(AgentsErrorCode.AGENT_NOT_FOUND, AgentsErrorCode.AGENT_GONE, ReservationsErrorCode.RESERVATION_INSUFFICIENT_RESOURCES)
  create(@Body() body: CreateReservationDto, @CurrentActor() actor: Actor): Promise<ReservationDto> {
    return this.reservations.create(body, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unreserve (refused while the role uses the reserved resources)' })
  @ApiErrors(ReservationsErrorCode.RESERVATION_NOT_FOUND, ReservationsErrorCode.RESERVATION_IN_USE)
  remove(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.reservations.remove(id, actor);
  }
}

@Module({ controllers: [ReservationsController], providers: [ReservationsService] })
export class ReservationsModule {}
