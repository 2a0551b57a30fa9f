import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ReadsOwnBody } from '../app/body-reader';
import { Public } from '../auth/auth.actor';
import { MESOS_SCHEDULER_PATHS, MesosScheduler } from './mesos-scheduler.service';

/**
 * Mesos's v1 scheduler HTTP API. Not in the OpenAPI document: its calls and events are Mesos's
 * (docs/mesos-compat.md). Public to the REST guard: the service authenticates each call itself
 * (Basic, Bearer or anonymous, as Mesos frameworks do), and reads the body only then. Served at
 * `/api/v1/scheduler` and at `/master/api/v1/scheduler`, the path Mesos's master also answers.
 */
@ApiExcludeController()
@Controller()
export class MesosSchedulerController {
  constructor(private readonly scheduler: MesosScheduler) {}

  @Post(MESOS_SCHEDULER_PATHS.map((p) => p.slice(1)))
  @Public()
  @ReadsOwnBody()
  call(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.scheduler.handle(req, res);
  }
}
