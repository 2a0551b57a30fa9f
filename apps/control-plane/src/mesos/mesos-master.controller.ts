import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { type Actor, CurrentActor, Public } from '../auth/auth.actor';
import { AnonymousReadable, Requires } from '../auth/permissions';
import { buildInfo } from './mesos-build';
import { MesosMaster } from './mesos-master.service';

const page = (value: string | undefined, fallback: number, max: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
};

/**
 * Mesos's read-only master endpoints (Mesos's JSON, not in the OpenAPI document: see
 * docs/mesos-compat.md). Reading needs a token with the `read` permission (Bearer, or Basic as
 * Mesos tools send principal and secret); the caller's view ACLs filter frameworks and tasks.
 * /master/redirect is open, as /health is; /metrics/snapshot is read as /metrics is (the
 * get_endpoints ACL, and only the roles view_roles allows).
 */
@ApiExcludeController()
@Controller()
export class MesosMasterController {
  constructor(private readonly master: MesosMaster) {}

  /** 307 to the leading master, as a Mesos master answers; 503 while no leader is known. */
  @Get('master/redirect')
  @Public()
  redirect(@Res() res: Response): void {
    const leader = this.master.leader;
    if (!leader) {
      res.status(503).json({ code: 'NO_LEADER', message: 'no leader is known yet: try again shortly' });
      return;
    }
    res.setHeader('Location', `//${new URL(leader).host}`);
    res.status(307).end();
  }

  @Get(['master/state', 'master/state.json', 'state', 'state.json'])
  @Requires('read')
  @AnonymousReadable()
  state(@CurrentActor() actor: Actor): Promise<Record<string, unknown>> {
    return this.master.state(actor);
  }

  @Get(['master/state-summary', 'state-summary'])
  @Requires('read')
  @AnonymousReadable()
  summary(@CurrentActor() actor: Actor): Promise<Record<string, unknown>> {
    return this.master.summary(actor);
  }

  /** 200 with no body while healthy (the database answers), 503 otherwise, as Mesos's /master/health. */
  @Get(['master/health'])
  @Public()
  async health(@Res() res: Response): Promise<void> {
    res.status((await this.master.healthy()) ? 200 : 503).end();
  }

  /** The version and build, open as Mesos's /version. */
  @Get(['version', 'master/version'])
  @Public()
  version(): Record<string, unknown> {
    return { ...buildInfo() };
  }

  /** `{ flags }`, under the get_endpoints ACL for /master/flags. */
  @Get(['master/flags', 'flags'])
  @Requires('read')
  @AnonymousReadable()
  async flags(@CurrentActor() actor: Actor): Promise<{ flags: Record<string, string> }> {
    return { flags: await this.master.flags(actor) };
  }

  @Get(['master/frameworks', 'frameworks'])
  @Requires('read')
  @AnonymousReadable()
  frameworks(@CurrentActor() actor: Actor): Promise<Record<string, unknown>> {
    return this.master.frameworkLists(actor);
  }

  @Get(['master/slaves', 'slaves'])
  @Requires('read')
  @AnonymousReadable()
  slaves(@CurrentActor() actor: Actor): Promise<Record<string, unknown>> {
    return this.master.slaves(actor);
  }

  @Get(['master/roles', 'roles'])
  @Requires('read')
  @AnonymousReadable()
  roles(@CurrentActor() actor: Actor): Promise<Record<string, unknown>> {
    return this.master.roles(actor);
  }

  /** Mesos's `limit` (default 100) and `offset`, newest first. */
  @Get(['master/tasks', 'tasks'])
  @Requires('read')
  @AnonymousReadable()
  tasks(@CurrentActor() actor: Actor, @Query('limit') limit?: string, @Query('offset') offset?: string): Promise<Record<string, unknown>> {
    return this.master.taskList(actor, page(limit, 100, 10_000), page(offset, 0, 1_000_000_000));
  }

  @Get(['metrics/snapshot', 'master/metrics/snapshot'])
  @Requires('read')
  @AnonymousReadable()
  snapshot(@CurrentActor() actor: Actor): Promise<Record<string, number>> {
    return this.master.snapshot(actor);
  }
}
