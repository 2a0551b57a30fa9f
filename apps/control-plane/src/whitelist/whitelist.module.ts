/**
 * The agent whitelist (Mesos's --whitelist, settable at run time): `null` lets every agent be
 * offered, a list only those hostnames, an empty list none. Besides replacing it whole, hostnames
 * can be added and removed (the dashboard's per-agent toggle).
 */
import { applyDecorators, Body, Controller, Get, Injectable, Module, Patch, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import type { EntityManager } from 'typeorm';
import { Not } from 'typeorm';
import { AgentEntity, AgentStatus } from '../agents/agent.entity';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { Database } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ApiErrors } from '../errors/errors.dto';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../events/cluster-events';
import { WhitelistEntity } from './whitelist.entity';

/**
 * A list of hostnames. The checks run in the order applied here (stopAtFirstError reports the
 * first that fails): a list, not too long, of strings, short, well-formed.
 */
const IsHostnames = (notAList: string) =>
  applyDecorators(
    IsArray({ message: notAList }),
    ArrayMaxSize(100_000),
    IsString({ each: true, message: 'each hostname must be a string' }),
    MaxLength(253, { each: true, message: 'a hostname has at most 253 characters' }),
    Matches(/^[^\s,;]+$/, { each: true, message: 'a hostname must be non-empty and have no spaces, commas or semicolons' }),
  );

export class WhitelistDto {
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'null: every agent may be offered; []: none may',
    example: ['node-1', 'node-2'],
  })
  // class-validator runs the decorators nearest the property first (stopAtFirstError keeps one).
  @IsHostnames('hostnames must be a list of hostnames or null')
  @ValidateIf((_, v) => v !== null)
  @IsDefined({ message: 'hostnames is required (null for no whitelist)' })
  hostnames!: string[] | null;
}

export class WhitelistChangeDto {
  @ApiPropertyOptional({
    type: [String],
    description: 'hostnames to whitelist (nothing changes for them while there is no whitelist)',
    example: ['node-3'],
  })
  @IsHostnames('add must be a list of hostnames')
  @IsOptional()
  add?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'hostnames to take off the whitelist; with no whitelist set, this sets one: every present agent (not GONE) but these',
    example: ['node-1'],
  })
  @IsHostnames('remove must be a list of hostnames')
  @IsOptional()
  remove?: string[];
}

@Injectable()
export class WhitelistService {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
  ) {}

  async get(): Promise<WhitelistDto> {
    const row = await this.db.manager.findOne(WhitelistEntity, { where: { id: 1 } });
    return { hostnames: row?.hostnames ?? null };
  }

  replace(hostnames: string[] | null, actor: Actor): Promise<WhitelistDto> {
    return this.update(actor, () => (hostnames === null ? null : hostnames));
  }

  /** Adds and removes hostnames; removing from no whitelist starts one with every present agent. */
  change(change: WhitelistChangeDto, actor: Actor): Promise<WhitelistDto> {
    const add = change.add ?? [];
    const remove = new Set(change.remove ?? []);
    if (!add.length && !remove.size)
      throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, 'invalid request: name hostnames to add or remove', {
        errors: [{ field: 'add', problems: ['add or remove needs at least one hostname'] }],
      });
    const both = add.find((h) => remove.has(h));
    if (both)
      throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: '${both}' is both added and removed`, {
        errors: [{ field: 'remove', problems: [`'${both}' is also in add`] }],
      });
    return this.update(actor, async (previous, tx) => {
      if (previous === null && !remove.size) return null;
      const base =
        previous ??
        (await tx.find(AgentEntity, { where: { status: Not(AgentStatus.GONE) }, select: { hostname: true } })).map((a) => a.hostname);
      return [...base, ...add].filter((h) => !remove.has(h));
    });
  }

  /** One whitelist change: locked, audited, announced once committed. */
  private async update(
    actor: Actor,
    compute: (previous: string[] | null, tx: EntityManager) => string[] | null | Promise<string[] | null>,
  ): Promise<WhitelistDto> {
    const next = await this.db.transaction(async (tx) => {
      const row = await tx.findOne(WhitelistEntity, { where: { id: 1 }, lock: { mode: 'pessimistic_write' } });
      const previous = row?.hostnames ?? null;
      const computed = await compute(previous, tx);
      const value = computed === null ? null : [...new Set(computed)].sort();
      await tx.save(WhitelistEntity, { id: 1, hostnames: value, updatedAt: new Date() });
      await this.audit.record(tx, actor, {
        action: 'whitelist.update',
        targetType: 'whitelist',
        targetId: null,
        before: { hostnames: previous },
        after: { hostnames: value },
      });
      return value;
    });
    this.events.emit({ type: 'whitelist.updated', hostnames: next });
    return { hostnames: next };
  }
}

@ApiTags('whitelist')
@ApiBearerAuth()
@Controller('api/v1/whitelist')
export class WhitelistController {
  constructor(private readonly whitelist: WhitelistService) {}

  @Get()
  @ApiOperation({ summary: 'The agent whitelist' })
  @ApiOkResponse({ type: WhitelistDto })
  @ApiErrors()
  get(): Promise<WhitelistDto> {
    return this.whitelist.get();
  }

  @Put()
  @ApiOperation({ summary: 'Replace the whitelist (null: every agent; []: none)' })
  @ApiOkResponse({ type: WhitelistDto })
  @ApiErrors()
  replace(@Body() body: WhitelistDto, @CurrentActor() actor: Actor): Promise<WhitelistDto> {
    return this.whitelist.replace(body.hostnames, actor);
  }

  @Patch()
  @ApiOperation({
    summary: 'Add hostnames to the whitelist or remove them (removing with no whitelist set starts one with every other present agent)',
  })
  @ApiOkResponse({ type: WhitelistDto })
  @ApiErrors()
  change(@Body() body: WhitelistChangeDto, @CurrentActor() actor: Actor): Promise<WhitelistDto> {
    return this.whitelist.change(body, actor);
  }
}

@Module({ controllers: [WhitelistController], providers: [WhitelistService] })
export class WhitelistModule {}
