/** Mesos's APIs on Arbiter's master: the v1 scheduler HTTP API, and the read-only endpoints Mesos tooling reads. */
import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AuthModule } from '../auth/auth.module';
import { ClusterModule } from '../cluster/cluster.module';
import { FrameworksModule } from '../frameworks/frameworks.module';
import { RolesModule } from '../roles/roles.module';
import { TasksModule } from '../tasks/tasks.module';
import { AllocationModule } from '../allocation/allocation.module';
import { FrameworkLifecycleModule } from '../framework-lifecycle/framework-lifecycle.module';
import { OffersModule } from '../offers/offers.module';
import { OperationsModule } from '../operations/operations.module';
import { ExecutorsModule } from '../executors/executors.module';
import { MesosMasterController } from './mesos-master.controller';
import { MesosMaster } from './mesos-master.service';
import { MesosSchedulerController } from './mesos-scheduler.controller';
import { MesosScheduler } from './mesos-scheduler.service';
import { MasterModule } from '../master/master.module';

@Module({
  imports: [
    AuthModule,
    MasterModule,
    AgentsModule,
    FrameworksModule,
    FrameworkLifecycleModule,
    TasksModule,
    OffersModule,
    OperationsModule,
    AllocationModule,
    RolesModule,
    ClusterModule,
    ExecutorsModule,
  ],
  controllers: [MesosSchedulerController, MesosMasterController],
  providers: [MesosScheduler, MesosMaster],
  exports: [MesosMaster],
})
export class MesosModule {}
