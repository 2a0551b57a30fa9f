/** The routing of each socket message on /agents and /frameworks to its handler. */
import { Module } from '@nestjs/common';
import { OperationsModule } from '../operations/operations.module';
import { AgentLifecycleModule } from '../agent-lifecycle/agent-lifecycle.module';
import { AllocationModule } from '../allocation/allocation.module';
import { FrameworkLifecycleModule } from '../framework-lifecycle/framework-lifecycle.module';
import { ExecutorsModule } from '../executors/executors.module';
import { MasterModule } from '../master/master.module';
import { OffersModule } from '../offers/offers.module';
import { TasksModule } from '../tasks/tasks.module';
import { Gateways } from './gateways';

@Module({
  imports: [
    MasterModule,
    ExecutorsModule,
    AgentLifecycleModule,
    FrameworkLifecycleModule,
    OffersModule,
    TasksModule,
    AllocationModule,
    OperationsModule,
  ],
  providers: [Gateways],
})
export class GatewaysModule {}
