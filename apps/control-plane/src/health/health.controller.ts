import { Controller, Get, Header, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.actor';
import { Database } from '../database/database.service';
import { Leadership } from '../leadership/leadership.service';
import { Metrics } from './metrics';

/** `/health` answers within a second whatever the database does: a ping slower than this is a 503. */
const HEALTH_PING_TIMEOUT_MS = 500;

class HealthDto {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ enum: ['ok', 'unavailable'] }) database!: 'ok' | 'unavailable';
  @ApiProperty({ description: 'seconds since the process started' }) uptimeSeconds!: number;
  @ApiProperty({ enum: ['leader', 'standby'], description: 'whether this replica runs the master or serves as a standby' })
  role!: 'leader' | 'standby';
  @ApiProperty({ type: String, nullable: true, description: "the leader's advertised URL (ARBITER_ADVERTISE_URL), as last seen" })
  leader!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'the current leadership term, as last seen (null before any)' })
  epoch!: number | null;
}

@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
    private readonly leadership: Leadership,
  ) {
    metrics.watchLeadership(() => ({ leader: leadership.isLeader, epoch: leadership.epoch }));
  }

  @Get('health')
  @ApiOperation({ summary: "Liveness, database reachability and this replica's role (no token needed)" })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ type: HealthDto, description: 'the database does not answer' })
  async health(@Res({ passthrough: true }) res: Response): Promise<HealthDto> {
    let database: HealthDto['database'] = 'ok';
    try {
      await this.db.ping(HEALTH_PING_TIMEOUT_MS);
    } catch {
      database = 'unavailable';
      res.status(503);
    }
    return {
      status: database === 'ok' ? 'ok' : 'degraded',
      database,
      uptimeSeconds: Math.round(process.uptime()),
      role: this.leadership.role,
      leader: this.leadership.leaderUrl,
      epoch: this.leadership.epoch,
    };
  }

  @Get('metrics')
  @HttpCode(200)
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus metrics (no token needed)' })
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string' } })
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
