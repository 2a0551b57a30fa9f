/**
 * The master: the kernel, the cluster state and the handlers of each noun that change it, with
 * the socket namespaces /agents, /frameworks and /events. Not global: the modules that use what it
 * exports import it.
 */
import { Module } from '@nestjs/common';
import { EventViews } from './event-views';
import { AgentAdmission } from '../agents/agent-admission';
import { AgentDrain } from '../agents/agent-drain.handler';
import { AgentLiveness } from '../agents/agent-liveness.handler';
import { AgentMembership } from '../agents/agent-membership.handler';
import { AgentRemoval } from '../agents/agent-removal.handler';
import { AgentSessions } from '../agents/agent-sessions.handler';
import { AgentSessionsRepository } from '../agents/agent-sessions.repository';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AllocationRepository } from '../allocation/allocation.repository';
import { AllocatorConfigRepository } from '../allocation/allocator-config.repository';
import { AllocatorSync } from '../allocation/allocator-sync.handler';
import { AllocationSnapshot } from '../allocation/allocation-snapshot';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { AuthModule } from '../auth/auth.module';
import { OperatorStream } from '../realtime/operator-stream';
import { FrameworkFailover } from '../frameworks/framework-failover.handler';
import { FrameworkRemoval } from '../frameworks/framework-removal.handler';
import { FrameworkSessions } from '../frameworks/framework-sessions.handler';
import { TaskKills } from '../tasks/task-kills.handler';
import { FrameworkSessionsRepository } from '../frameworks/framework-sessions.repository';
import { Retention } from '../history/retention.handler';
import { RetentionRepository } from '../history/retention.repository';
import { MaintenanceStateRepository } from '../maintenance/maintenance-state.repository';
import { MaintenanceSync } from '../maintenance/maintenance-sync.handler';
import { OfferAnswers } from '../offers/offer-answers.handler';
import { AnswerPlans } from '../offers/answer-plans';
import { ReservationAccepts } from '../offers/reservation-accepts.handler';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { OffersRepository } from '../offers/offers.repository';
import { Gateways } from '../gateways/gateways';
import { Realtime } from '../realtime/realtime';
import { ReservationsModule } from '../reservations/reservations.module';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { TasksRepository } from '../tasks/tasks.repository';
import { AgentRegistry } from './agent-registry';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState } from './cluster-state';
import { FrameworkRegistry } from './framework-registry';
import { ClusterMetrics } from './cluster-metrics';
import { EventualWrites } from '../kernel/eventual-writes';
import { Kernel } from '../kernel/kernel';
import { Outbound } from '../kernel/outbound';
import { LiveView } from './live-view';
import { LiveViewRepository } from './live-view.repository';
import { Outbox } from './outbox';
import { ExecutorRegistry } from './executor-registry';
import { Executors } from '../executors/executors.handler';
import { ExecutorsRepository } from '../executors/executors.repository';

const MIB = 1024 * 1024;

const HANDLERS = [
  AgentSessions,
  AgentAdmission,
  AgentMembership,
  AgentLiveness,
  AgentRemoval,
  AgentDrain,
  FrameworkSessions,
  FrameworkFailover,
  FrameworkRemoval,
  TaskKills,
  OfferRescinds,
  OfferAnswers,
  AnswerPlans,
  ReservationAccepts,
  TaskUpdates,
  AllocationLoop,
  InverseOffers,
  AllocatorSync,
  MaintenanceSync,
  Retention,
  Executors,
];
const REPOSITORIES = [
  AgentSessionsRepository,
  FrameworkSessionsRepository,
  OffersRepository,
  TasksRepository,
  AllocationRepository,
  AllocatorConfigRepository,
  MaintenanceStateRepository,
  RetentionRepository,
  ExecutorsRepository,
];

@Module({
  imports: [AuthModule, ReservationsModule],
  providers: [
    Kernel,
    {
      provide: Outbound,
      useFactory: (config: AppConfig, clock: Clock) =>
        new Outbound({ perConnection: config.connectionQueueMb * MIB, perPrincipal: config.principalQueueMb * MIB }, clock),
      inject: [APP_CONFIG, CLOCK],
    },
    EventualWrites,
    ClusterMetrics,
    AgentRegistry,
    FrameworkRegistry,
    ExecutorRegistry,
    ClusterState,
    Outbox,
    Realtime,
    OperatorStream,
    EventViews,
    Gateways,
    LiveView,
    LiveViewRepository,
    AllocationSnapshot,
    ...HANDLERS,
    ...REPOSITORIES,
  ],
  exports: [
    // What the master's life (../master-life.ts, in the composition root) starts and stops.
    Kernel,
    Outbox,
    AllocatorSync,
    AllocationLoop,
    AgentLiveness,
    OfferRescinds,
    Outbound,
    AllocationSnapshot,
    ClusterState,
    LiveView,
    OperatorStream,
    Realtime,
    FrameworkSessions,
    FrameworkFailover,
    FrameworkRemoval,
    TaskKills,
    OfferAnswers,
    TaskUpdates,
    InverseOffers,
    Retention,
    Executors,
  ],
})
export class MasterModule {}
