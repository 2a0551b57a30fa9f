/**
 * The master's state in step with the database: rebuilt on each term from every noun's rows,
 * then following operator changes (agents, roles, quota, whitelist, maintenance) as they
 * commit, through the agents' and frameworks' lifecycles. Above both, as it drives them.
 */
import { Module } from '@nestjs/common';
import { AgentLifecycleModule } from '../agent-lifecycle/agent-lifecycle.module';
import { AllocationModule } from '../allocation/allocation.module';
import { FrameworkLifecycleModule } from '../framework-lifecycle/framework-lifecycle.module';
import { ExecutorsModule } from '../executors/executors.module';
import { MasterModule } from '../master/master.module';
import { OffersModule } from '../offers/offers.module';
import { TasksModule } from '../tasks/tasks.module';
import { AllocatorSync } from './allocator-sync.handler';

@Module({
  imports: [MasterModule, ExecutorsModule, AgentLifecycleModule, FrameworkLifecycleModule, OffersModule, TasksModule, AllocationModule],
  providers: [AllocatorSync],
  exports: [AllocatorSync],
})
export class ClusterSyncModule {}
