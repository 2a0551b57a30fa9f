/**
 * Roles, weights and quota (Mesos's GET_ROLES, GET_WEIGHTS/UPDATE_WEIGHTS,
 * GET_QUOTA/UPDATE_QUOTA). Updates are all or nothing; every change is audited in its own
 * transaction and announced to the allocation loop once committed.
 */
import { Body, Controller, Delete, Get, HttpCode, Injectable, Module, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import type { EntityManager } from 'typeorm';
import { Not } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { Role } from '@arbiter/contracts';
import { AgentEntity, AgentStatus } from '../agents/agent.entity';
import { AllocationUsageRepository } from '../allocation/allocation-usage.repository';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import {
  IsResources,
  parseResourcesWithRule,
  RESOURCES_INPUT_SCHEMA,
  SCALAR_MAP_SCHEMA,
  scalarMap,
  sumScalars,
} from '../common/resources.dto';
import { Database, lockDomain, LockDomain } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ApiErrors } from '../errors/errors.dto';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../events/cluster-events';
import { FrameworkEntity, FrameworkState } from '../frameworks/framework.entity';
import { ReservationEntity } from '../reservations/reservation.entity';
import { QuotaEntity, type ScalarMap } from './quota.entity';
import { RoleEntity } from './role.entity';
import { RolesErrorCode } from './roles.errors';

/** Largest weight or quota amount accepted: beyond it is a typo, not a configuration. */
const MAX_WEIGHT = 1_000_000;
const MAX_AMOUNT = 1e12;

/** Checks a role path (the rules of the wire contracts); the message names the field. */
export function checkRole(role: unknown, field: string): string {
  const r = Role.safeParse(role);
  if (!r.success)
    throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${field} ${r.error.issues[0].message}`, {
      errors: [{ field, problems: [r.error.issues[0].message] }],
    });
  return r.data;
}

/** The role and every ancestor: `a/b/c` -> a, a/b, a/b/c. */
export function withAncestors(role: string): string[] {
  const parts = role.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Resources the guarantees need beyond capacity, by name (empty when they fit). */
export function overCapacity(
  guarantees: ScalarMap[],
  capacity: ScalarMap,
): Array<{ resource: string; requested: number; available: number }> {
  const sum: ScalarMap = {};
  for (const g of guarantees) for (const [k, v] of Object.entries(g)) sum[k] = (sum[k] ?? 0) + v;
  return Object.entries(sum)
    .filter(([k, v]) => v > (capacity[k] ?? 0) + 1e-9)
    .map(([resource, requested]) => ({ resource, requested: Math.round(requested * 1000) / 1000, available: capacity[resource] ?? 0 }));
}

// ------------------------------------------------------------------ DTOs

export class WeightDto {
  @ApiProperty({ example: 'eng' }) @MaxLength(255) @IsString() role!: string;
  @ApiProperty({ example: 2, minimum: 0, exclusiveMinimum: true, maximum: MAX_WEIGHT })
  @Max(MAX_WEIGHT)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'weight must be a number' })
  weight!: number;
}

export class UpdateWeightsDto {
  @ApiProperty({ type: [WeightDto] })
  @ValidateNested({ each: true })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1)
  @IsArray()
  @Type(() => WeightDto)
  weights!: WeightDto[];
}

export class QuotaInputDto {
  @ApiProperty({ example: 'eng', description: 'a top-level role' }) @MaxLength(255) @IsString() role!: string;
  @ApiPropertyOptional({ ...RESOURCES_INPUT_SCHEMA, description: 'guaranteed amounts: scalars only, e.g. "cpus:4;mem:8192"' })
  @IsOptional()
  @IsResources({ scalarsOnly: true })
  guarantees?: unknown;
  @ApiPropertyOptional({ ...RESOURCES_INPUT_SCHEMA, description: 'limits: scalars only; a resource not named is unlimited' })
  @IsOptional()
  @IsResources({ scalarsOnly: true })
  limits?: unknown;
}

export class UpdateQuotaDto {
  @ApiProperty({ type: [QuotaInputDto] })
  @ValidateNested({ each: true })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1)
  @IsArray()
  @Type(() => QuotaInputDto)
  quotas!: QuotaInputDto[];

  @ApiPropertyOptional({ default: false, description: 'accept guarantees beyond the cluster capacity' })
  @IsOptional()
  @IsBoolean({ message: 'force must be true or false' })
  force?: boolean;
}

const SCALARS = SCALAR_MAP_SCHEMA;

export class QuotaDto {
  @ApiProperty() role!: string;
  @ApiProperty(SCALARS) guarantees!: ScalarMap;
  @ApiProperty(SCALARS) limits!: ScalarMap;
}

export class RoleDto {
  @ApiProperty({ example: 'eng/ml' }) path!: string;
  @ApiProperty({ example: 1 }) weight!: number;
  @ApiProperty({ type: QuotaDto, nullable: true }) quota!: QuotaDto | null;
  @ApiProperty({ ...SCALARS, description: 'held by live tasks and outstanding offers' }) allocated!: ScalarMap;
  @ApiProperty({ ...SCALARS, description: 'reserved for the role' }) reserved!: ScalarMap;
  @ApiProperty({ type: [String], description: 'frameworks subscribed to the role' }) frameworks!: string[];
}

// ------------------------------------------------------------------ service

@Injectable()
export class RolesService {
  constructor(
    private readonly db: Database,
    private readonly usage: AllocationUsageRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
  ) {}

  async roles(): Promise<RoleDto[]> {
    const tx = this.db.manager;
    const [rows, quotas, frameworks, reservations, usage] = await Promise.all([
      tx.find(RoleEntity),
      tx.find(QuotaEntity),
      tx.find(FrameworkEntity, { where: { state: Not(FrameworkState.COMPLETED) }, select: { id: true, roles: true } }),
      tx.find(ReservationEntity, { select: { role: true, resources: true } }),
      this.usage.list(tx),
    ]);
    const paths = new Set<string>();
    const add = (role: string) => withAncestors(role).forEach((r) => paths.add(r));
    rows.forEach((r) => add(r.path));
    quotas.forEach((q) => add(q.role));
    frameworks.forEach((f) => f.roles.forEach(add));
    reservations.forEach((r) => add(r.role));
    usage.forEach((u) => add(u.role));
    const sumBy = (items: Array<{ role: string; resources: ResourceEntry[] }>, role: string) =>
      sumScalars(items.filter((i) => i.role === role || i.role.startsWith(`${role}/`)).map((i) => i.resources));
    return [...paths].sort().map((path) => {
      const q = quotas.find((x) => x.role === path);
      return {
        path,
        weight: rows.find((r) => r.path === path)?.weight ?? 1,
        quota: q ? { role: q.role, guarantees: q.guarantees, limits: q.limits } : null,
        allocated: sumBy(usage, path),
        reserved: sumBy(reservations, path),
        frameworks: frameworks.filter((f) => f.roles.includes(path)).map((f) => f.id),
      };
    });
  }

  async weights(): Promise<WeightDto[]> {
    return (await this.db.manager.find(RoleEntity, { order: { path: 'ASC' } })).map((r) => ({ role: r.path, weight: r.weight }));
  }

  async updateWeights(input: WeightDto[], actor: Actor): Promise<WeightDto[]> {
    const seen = new Set<string>();
    input.forEach((w, i) => {
      checkRole(w.role, `weights.${i}.role`);
      if (!(w.weight > 0))
        throw new ArbiterException(
          CommonErrorCode.VALIDATION_FAILED,
          `invalid request: weights.${i}.weight must be a positive number (got ${w.weight})`,
          { errors: [{ field: `weights.${i}.weight`, problems: ['must be a positive number'] }] },
        );
      if (seen.has(w.role))
        throw new ArbiterException(RolesErrorCode.ROLE_REPEATED, `role '${w.role}' appears more than once (weights.${i})`, {
          role: w.role,
          index: i,
        });
      seen.add(w.role);
    });
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.ROLES);
      for (const w of input) {
        const before = await tx.findOne(RoleEntity, { where: { path: w.role } });
        await this.ensureRole(tx, w.role, w.weight);
        await this.audit.record(tx, actor, {
          action: 'weights.update',
          targetType: 'role',
          targetId: w.role,
          before: { weight: before?.weight ?? 1 },
          after: { weight: w.weight },
        });
      }
    });
    this.events.emit({ type: 'weights.updated', weights: Object.fromEntries(input.map((w) => [w.role, w.weight])) });
    return this.weights();
  }

  private async ensureRole(tx: EntityManager, path: string, weight?: number): Promise<void> {
    const now = new Date();
    const row = await tx.findOne(RoleEntity, { where: { path } });
    if (row) {
      if (weight !== undefined) await tx.update(RoleEntity, { path }, { weight, updatedAt: now });
    } else await tx.insert(RoleEntity, { path, weight: weight ?? 1, createdAt: now, updatedAt: now });
  }

  async quotas(): Promise<QuotaDto[]> {
    return (await this.db.manager.find(QuotaEntity, { order: { role: 'ASC' } })).map((q) => ({
      role: q.role,
      guarantees: q.guarantees,
      limits: q.limits,
    }));
  }

  async updateQuotas(input: QuotaInputDto[], force: boolean, actor: Actor): Promise<QuotaDto[]> {
    const seen = new Set<string>();
    const parsed = input.map((q, i) => {
      const role = checkRole(q.role, `quotas.${i}.role`);
      if (role.includes('/'))
        throw new ArbiterException(
          RolesErrorCode.QUOTA_HIERARCHY_VIOLATION,
          `quota applies to top-level roles; '${role}' is nested (quotas.${i}.role). Set it on '${role.split('/')[0]}'`,
          { role, index: i },
        );
      if (seen.has(role))
        throw new ArbiterException(RolesErrorCode.ROLE_REPEATED, `role '${role}' appears more than once (quotas.${i})`, { role, index: i });
      seen.add(role);
      const amounts = (value: unknown, field: string): ScalarMap => {
        if (value === undefined) return {};
        const map = scalarMap(parseResourcesWithRule(value, { scalarsOnly: true }));
        for (const [k, v] of Object.entries(map)) {
          if (v > MAX_AMOUNT)
            throw new ArbiterException(
              CommonErrorCode.VALIDATION_FAILED,
              `invalid request: quotas.${i}.${field} ${k} ${v} is beyond any cluster (at most ${MAX_AMOUNT})`,
              { errors: [{ field: `quotas.${i}.${field}`, problems: [`${k} too large`] }] },
            );
        }
        return map;
      };
      const guarantees = amounts(q.guarantees, 'guarantees');
      const limits = amounts(q.limits, 'limits');
      // A limit given as zero survives the shorthand parser dropping zeros.
      if (q.limits && typeof q.limits === 'object' && !Array.isArray(q.limits))
        for (const [k, v] of Object.entries(q.limits as Record<string, unknown>)) if (v === 0) limits[k] = 0;
      for (const [name, g] of Object.entries(guarantees)) {
        if (limits[name] !== undefined && g > limits[name]) {
          throw new ArbiterException(
            RolesErrorCode.QUOTA_GUARANTEE_EXCEEDS_LIMIT,
            `the guarantee of ${name} (${g}) exceeds its limit (${limits[name]}) for role '${role}'`,
            { role, resource: name, guarantee: g, limit: limits[name] },
          );
        }
      }
      return { role, guarantees, limits };
    });
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.ROLES);
      const existing = await tx.find(QuotaEntity);
      const after = new Map(existing.map((q) => [q.role, q.guarantees]));
      for (const q of parsed) after.set(q.role, q.guarantees);
      if (!force) {
        const capacity = await this.capacity(tx);
        const over = overCapacity([...after.values()], capacity);
        if (over.length) {
          const o = over[0];
          throw new ArbiterException(
            RolesErrorCode.QUOTA_EXCEEDS_CAPACITY,
            `the guarantees would need ${o.resource} ${o.requested} but the cluster has ${o.available}; lower them or send force=true to set them anyway`,
            { over },
          );
        }
      }
      const now = new Date();
      for (const q of parsed) {
        const before = existing.find((e) => e.role === q.role);
        await this.ensureRole(tx, q.role);
        await tx.save(QuotaEntity, { role: q.role, guarantees: q.guarantees, limits: q.limits, updatedAt: now });
        await this.audit.record(tx, actor, {
          action: 'quota.update',
          targetType: 'role',
          targetId: q.role,
          before: before ? { guarantees: before.guarantees, limits: before.limits } : null,
          after: { guarantees: q.guarantees, limits: q.limits },
        });
      }
    });
    for (const q of parsed) this.events.emit({ type: 'quota.updated', role: q.role });
    return this.quotas();
  }

  async removeQuota(role: string, actor: Actor): Promise<void> {
    checkRole(role, 'role');
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.ROLES);
      const before = await tx.findOne(QuotaEntity, { where: { role } });
      if (!before)
        throw new ArbiterException(RolesErrorCode.QUOTA_NOT_FOUND, `role '${role}' has no quota; GET /api/v1/quota lists them`, { role });
      await tx.delete(QuotaEntity, { role });
      await this.audit.record(tx, actor, {
        action: 'quota.remove',
        targetType: 'role',
        targetId: role,
        before: { guarantees: before.guarantees, limits: before.limits },
        after: null,
      });
    });
    this.events.emit({ type: 'quota.removed', role });
  }

  /** Scalar totals of the agents that still count (not GONE), unreserved and reserved alike. */
  private async capacity(tx: EntityManager): Promise<ScalarMap> {
    const agents = await tx.find(AgentEntity, { where: { status: Not(AgentStatus.GONE) }, select: { resources: true } });
    return sumScalars(agents.map((a) => a.resources));
  }
}

// ------------------------------------------------------------------ controllers

@ApiTags('roles')
@ApiBearerAuth()
@Controller('api/v1')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get('roles')
  @ApiOperation({ summary: 'Every known role with weight, quota, allocation, reservations and frameworks' })
  @ApiOkResponse({ type: [RoleDto] })
  @ApiErrors()
  list(): Promise<RoleDto[]> {
    return this.roles.roles();
  }

  @Get('weights')
  @ApiOperation({ summary: 'Weights set explicitly (others weigh 1)' })
  @ApiOkResponse({ type: [WeightDto] })
  @ApiErrors()
  weights(): Promise<WeightDto[]> {
    return this.roles.weights();
  }

  @Put('weights')
  @ApiOperation({ summary: 'Update the weights of several roles at once (all or nothing)' })
  @ApiOkResponse({ type: [WeightDto] })
  @ApiErrors(RolesErrorCode.ROLE_REPEATED)
  updateWeights(@Body() body: UpdateWeightsDto, @CurrentActor() actor: Actor): Promise<WeightDto[]> {
    return this.roles.updateWeights(body.weights, actor);
  }

  @Get('quota')
  @ApiOperation({ summary: 'Quotas: guarantees and limits per top-level role' })
  @ApiOkResponse({ type: [QuotaDto] })
  @ApiErrors()
  quotas(): Promise<QuotaDto[]> {
    return this.roles.quotas();
  }

  @Put('quota')
  @ApiOperation({ summary: 'Set the quota of several roles (all or nothing; guarantees within capacity unless force=true)' })
  @ApiOkResponse({ type: [QuotaDto] })
  @ApiErrors(
    RolesErrorCode.ROLE_REPEATED,
    RolesErrorCode.QUOTA_GUARANTEE_EXCEEDS_LIMIT,
    RolesErrorCode.QUOTA_HIERARCHY_VIOLATION,
    RolesErrorCode.QUOTA_EXCEEDS_CAPACITY,
  )
  updateQuotas(@Body() body: UpdateQuotaDto, @CurrentActor() actor: Actor): Promise<QuotaDto[]> {
    return this.roles.updateQuotas(body.quotas, body.force ?? false, actor);
  }

  @Delete('quota/:role')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a role's quota" })
  @ApiErrors(RolesErrorCode.QUOTA_NOT_FOUND)
  removeQuota(@Param('role') role: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.roles.removeQuota(role, actor);
  }
}

@Module({ controllers: [RolesController], providers: [RolesService] })
export class RolesModule {}
