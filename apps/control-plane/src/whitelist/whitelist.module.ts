/**
 * The agent whitelist (Mesos's --whitelist, settable at run time): `null` lets every agent be
 * offered, a list only those hostnames, an empty list none.
 */
import { Body, Controller, Get, Injectable, Module, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { Database } from '../database/database.service';
import { ApiErrors } from '../errors/errors.dto';
import { ClusterEvents } from '../events/cluster-events';
import { WhitelistEntity } from './whitelist.entity';

export class WhitelistDto {
  @ApiProperty({ type: [String], nullable: true, description: 'null: every agent may be offered; []: none may', example: ['node-1', 'node-2'] })
  // class-validator runs the decorators nearest the property first (stopAtFirstError keeps one).
  @Matches(/^[^\s,;]+$/, { each: true, message: 'a hostname must be non-empty and have no spaces, commas or semicolons' })
  @MaxLength(253, { each: true, message: 'a hostname has at most 253 characters' })
  @IsString({ each: true, message: 'each hostname must be a string' })
  @ArrayMaxSize(100_000)
  @IsArray({ message: 'hostnames must be a list of hostnames or null' })
  @ValidateIf((_, v) => v !== null)
  @IsDefined({ message: 'hostnames is required (null for no whitelist)' })
  hostnames!: string[] | null;
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

  async replace(hostnames: string[] | null, actor: Actor): Promise<WhitelistDto> {
    const next = hostnames === null ? null : [...new Set(hostnames)].sort();
    await this.db.transaction(async (tx) => {
      const row = await tx.findOne(WhitelistEntity, { where: { id: 1 }, lock: { mode: 'pessimistic_write' } });
      await tx.save(WhitelistEntity, { id: 1, hostnames: next, updatedAt: new Date() });
      const previous = row?.hostnames ?? null;
      await this.audit.record(tx, actor, { action: 'whitelist.update', targetType: 'whitelist', targetId: null, before: { hostnames: previous }, after: { hostnames: next } });
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
}

@Module({ controllers: [WhitelistController], providers: [WhitelistService] })
export class WhitelistModule {}
