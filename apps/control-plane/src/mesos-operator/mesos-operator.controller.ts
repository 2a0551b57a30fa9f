import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ReadsOwnBody } from '../app/body-reader';
import { Public } from '../auth/auth.actor';
import { MESOS_OPERATOR_PATHS, MesosOperator } from './mesos-operator.service';

/**
 * Mesos's v1 operator API. Not in the OpenAPI document: its calls and answers are Mesos's
 * (docs/mesos-compat.md). Public to the REST guard: the service authenticates each call itself
 * and reads the body only then. Served at `/api/v1` and at `/master/api/v1`.
 */
@ApiExcludeController()
@Controller()
export class MesosOperatorController {
  constructor(private readonly operator: MesosOperator) {}

  @Post(MESOS_OPERATOR_PATHS.map((p) => p.slice(1)))
  @Public()
  @ReadsOwnBody()
  call(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.operator.handle(req, res);
  }
}
