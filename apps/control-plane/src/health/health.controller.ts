import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AclsService } from '../acls/acls.service';
import { type Actor, CurrentActor, Public } from '../auth/auth.actor';
import { Requires } from '../auth/permissions';
import { Database } from '../database/database.service';
import { Leadership } from '../leadership/leadership.service';
import { Metrics } from './metrics';

/** `/health` answers within a second whatever the database does: a ping slower than this is a 503. */
export const HEALTH_PING_TIMEOUT_MS = 500;

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

/** A series' `role` label (role names have no quotes or backslashes). */
const ROLE_LABEL = /[{,]role="([^"]*)"/;

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
    private readonly leadership: Leadership,
    private readonly acls: AclsService,
  ) {
    metrics.watchLeadership(() => ({ leader: leadership.isLeader, epoch: leadership.epoch }));
  }

  @Get('health')
  @Public()
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
  @Requires('read', 'get_endpoints')
  @ApiOperation({
    summary:
      'Prometheus metrics (a token whose principal the get_endpoints ACL allows /metrics; per-role series of the roles view_roles allows)',
  })
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string' } })
  async metricsText(@CurrentActor() actor: Actor, @Res({ passthrough: true }) res: Response): Promise<string> {
    await this.acls.authorize(actor, 'get_endpoints', '/metrics', 'read /metrics');
    // Set once authorized: a refusal is JSON.
    res.setHeader('Content-Type', 'text/plain; version=0.0.4; charset=utf-8');
    const text = await this.metrics.registry.metrics();
    const scope = this.acls.scope(actor, 'view_roles');
    if ('except' in scope && !scope.except.length) return text;
    return text
      .split('\n')
      .filter((line) => {
        const role = line.startsWith('#') ? undefined : ROLE_LABEL.exec(line)?.[1];
        return role === undefined || this.acls.allows(actor, 'view_roles', role);
      })
      .join('\n');
  }
}
