/** Mesos's APIs on Arbiter's master: the v1 scheduler HTTP API, and the read-only endpoints Mesos tooling reads. */
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MesosSchedulerController } from './mesos-scheduler.controller';
import { MesosScheduler } from './mesos-scheduler.service';

@Module({ imports: [AuthModule], controllers: [MesosSchedulerController], providers: [MesosScheduler], exports: [MesosScheduler] })
export class MesosModule {}
