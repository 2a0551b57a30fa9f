import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrors } from '../errors/errors.dto';
import { HistoryErrorCode } from './history.errors';
import { CycleDetailDto, CycleListQueryDto, CyclePageDto, ExportQueryDto, SharePointDto, SharesQueryDto } from './history.dto';
import { HistoryService } from './history.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';
import { type Actor, CurrentActor } from '../auth/auth.actor';

const date = (s?: string) => (s ? new Date(s) : undefined);

@ApiTags('allocations')
@ApiBearerAuth()
@Controller('api/v1/allocations')
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get()
  @Coalesced()
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'Allocation cycles, newest first (time range; cycles that offered to a role, framework or agent)' })
  @ApiOkResponse({ type: CyclePageDto })
  @ApiErrors()
  list(@Query() q: CycleListQueryDto, @CurrentActor() actor: Actor): Promise<CyclePageDto> {
    return this.history.cycles(
      { from: date(q.from), to: date(q.to), role: q.role, frameworkId: q.frameworkId, agentId: q.agentId },
      q.limit,
      q.offset,
      actor,
    );
  }

  @Get('shares')
  @Coalesced()
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'Dominant share over time per role or framework' })
  @ApiOkResponse({ type: [SharePointDto] })
  @ApiErrors()
  shares(@Query() q: SharesQueryDto, @CurrentActor() actor: Actor): Promise<SharePointDto[]> {
    return this.history.shares(q.kind, q.client, date(q.from), date(q.to), q.points, actor);
  }

  @Get('export')
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'Export cycles with their offers and shares as CSV or JSON' })
  @ApiProduces('text/csv', 'application/json')
  @ApiOkResponse({
    description: 'CSV: one line per offer (cycles without offers on a line of their own); JSON: cycles with offers and shares',
  })
  @ApiErrors()
  async export(@Query() q: ExportQueryDto, @Res({ passthrough: true }) res: Response, @CurrentActor() actor: Actor): Promise<unknown> {
    const rows = await this.history.export(date(q.from), date(q.to), actor);
    res.setHeader('Content-Disposition', `attachment; filename="arbiter-allocations.${q.format}"`);
    if (q.format === 'json') return rows;
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    return this.history.exportCsv(rows);
  }

  @Get(':id')
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'One cycle: its offers, shares and decision trace' })
  @ApiOkResponse({ type: CycleDetailDto })
  @ApiErrors(HistoryErrorCode.CYCLE_NOT_FOUND)
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<CycleDetailDto> {
    return this.history.cycle(id, actor);
  }
}
