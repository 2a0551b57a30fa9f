/**
 * The master: the kernel, the cluster state (its registries, the offer book), the outbox, and
 * the socket namespaces /agents, /frameworks and /events, with the read-only views of what the
 * master keeps (LiveView, usage, what sits on agents). The handlers that change the state are
 * provided by their nouns' modules (and the use cases that span nouns by theirs), which import
 * this one. Not global: the modules that use what it exports import it.
 */
import { Module } from '@nestjs/common';
import { EventViews } from './event-views';
import { AuthModule } from '../auth/auth.module';
import { OperatorStream } from '../realtime/operator-stream';
import { Realtime } from '../realtime/realtime';
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
import { AllocationUsageRepository } from './allocation-usage.repository';
import { AgentOccupancyRepository } from './agent-occupancy.repository';
import { ExecutorRegistry } from './executor-registry';

const MIB = 1024 * 1024;

@Module({
  imports: [AuthModule],
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
    LiveView,
    LiveViewRepository,
    AllocationUsageRepository,
    AgentOccupancyRepository,
  ],
  exports: [
    // What the handlers, the read views and the master's life (../master-life.ts) use.
    Kernel,
    Outbound,
    EventualWrites,
    AgentRegistry,
    FrameworkRegistry,
    ExecutorRegistry,
    ClusterState,
    Outbox,
    Realtime,
    OperatorStream,
    EventViews,
    LiveView,
    AllocationUsageRepository,
    AgentOccupancyRepository,
  ],
})
export class MasterModule {}
