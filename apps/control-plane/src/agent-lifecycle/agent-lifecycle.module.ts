/**
 * The life of an agent in the master, a use case across nouns: registration and admission,
 * liveness (heartbeats, disconnection, its timeout), membership in the allocator, drain,
 * maintenance (DOWN machines out, inverse offers for DRAINING ones) and removal. Each step
 * touches the offers, tasks and allocation of the agent through their nouns' handlers.
 */
import { Module } from '@nestjs/common';
import { AllocationModule } from '../allocation/allocation.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { ExecutorsModule } from '../executors/executors.module';
import { MasterModule } from '../master/master.module';
import { OffersModule } from '../offers/offers.module';
import { TasksModule } from '../tasks/tasks.module';
import { AgentAdmission } from './agent-admission';
import { AgentDrain } from './agent-drain.handler';
import { AgentLiveness } from './agent-liveness.handler';
import { AgentMembership } from './agent-membership.handler';
import { AgentRemoval } from './agent-removal.handler';
import { AgentSessions } from './agent-sessions.handler';
import { AgentSessionsRepository } from './agent-sessions.repository';
import { MaintenanceSync } from './maintenance-sync.handler';

@Module({
  imports: [MasterModule, ExecutorsModule, TasksModule, OffersModule, AllocationModule, MaintenanceModule],
  providers: [
    AgentSessions,
    AgentAdmission,
    AgentMembership,
    AgentLiveness,
    AgentRemoval,
    AgentDrain,
    MaintenanceSync,
    AgentSessionsRepository,
  ],
  exports: [AgentSessions, AgentLiveness, AgentMembership, AgentDrain, MaintenanceSync, AgentSessionsRepository],
})
export class AgentLifecycleModule {}
