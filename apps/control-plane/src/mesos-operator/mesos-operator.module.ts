/** Mesos's v1 operator API on Arbiter's control plane: reads, writes through the REST services, and the SUBSCRIBE event stream. */
import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { ExecutorsModule } from '../executors/executors.module';
import { FrameworkLifecycleModule } from '../framework-lifecycle/framework-lifecycle.module';
import { FrameworksModule } from '../frameworks/frameworks.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { MasterModule } from '../master/master.module';
import { MesosModule } from '../mesos/mesos.module';
import { ReservationsModule } from '../reservations/reservations.module';
import { RolesModule } from '../roles/roles.module';
import { TasksModule } from '../tasks/tasks.module';
import { VolumesModule } from '../volumes/volumes.module';
import { MesosOperatorController } from './mesos-operator.controller';
import { MesosOperator } from './mesos-operator.service';
import { OperatorReads } from './operator-reads';
import { OperatorStateRepository } from './operator-state.repository';
import { OperatorSubscriptions } from './operator-subscriptions';
import { OperatorWrites } from './operator-writes';

@Module({
  imports: [
    AuthModule,
    AuditModule,
    MasterModule,
    MesosModule,
    AgentsModule,
    FrameworksModule,
    FrameworkLifecycleModule,
    TasksModule,
    ExecutorsModule,
    RolesModule,
    ReservationsModule,
    MaintenanceModule,
    VolumesModule,
  ],
  controllers: [MesosOperatorController],
  providers: [MesosOperator, OperatorReads, OperatorWrites, OperatorSubscriptions, OperatorStateRepository],
})
export class MesosOperatorModule {}
