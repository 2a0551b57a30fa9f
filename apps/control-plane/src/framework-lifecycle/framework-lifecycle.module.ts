/**
 * The life of a framework in the master, a use case across nouns: subscription (and
 * suppress/revive), disconnection and failover, and removal (its own teardown, or the
 * operator's). Each step touches the offers, tasks and allocation of the framework through their
 * nouns' handlers.
 */
import { Module } from '@nestjs/common';
import { OperationsModule } from '../operations/operations.module';
import { AllocationModule } from '../allocation/allocation.module';
import { FrameworksModule } from '../frameworks/frameworks.module';
import { ExecutorsModule } from '../executors/executors.module';
import { MasterModule } from '../master/master.module';
import { OffersModule } from '../offers/offers.module';
import { TasksModule } from '../tasks/tasks.module';
import { FrameworkFailover } from './framework-failover.handler';
import { FrameworkRemoval } from './framework-removal.handler';
import { FrameworkSessions } from './framework-sessions.handler';
import { FrameworkSessionsRepository } from './framework-sessions.repository';
import { FrameworkTeardownController } from './framework-teardown.controller';
import { FrameworkTeardown } from './framework-teardown.service';

@Module({
  imports: [MasterModule, ExecutorsModule, FrameworksModule, TasksModule, OffersModule, AllocationModule, OperationsModule],
  controllers: [FrameworkTeardownController],
  providers: [FrameworkSessions, FrameworkFailover, FrameworkRemoval, FrameworkSessionsRepository, FrameworkTeardown],
  exports: [FrameworkSessions, FrameworkFailover, FrameworkRemoval, FrameworkSessionsRepository, FrameworkTeardown],
})
export class FrameworkLifecycleModule {}
