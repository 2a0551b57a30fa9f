/**
 * The composition root: the control plane's root module (configuration, database, logging,
 * auth, audit and the API) and the one place that lists the modules. The schema's entities are
 * gathered from them (each module declares its own), as are the error codes (each module's
 * `*.errors.ts` registers them, checked when the application is built).
 */
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { BodyInterceptor } from './app/body-reader';
import { entitiesOf } from './database/database.entities';
import { DataSource, type DataSourceOverrides, dataSourceFor } from './database/database.options';
import { AclsModule } from './acls/acls.module';
import { AgentsModule } from './agents/agents.module';
import { AgentLifecycleModule } from './agent-lifecycle/agent-lifecycle.module';
import { ClusterSyncModule } from './cluster-sync/cluster-sync.module';
import { FrameworkLifecycleModule } from './framework-lifecycle/framework-lifecycle.module';
import { GatewaysModule } from './gateways/gateways.module';
import { ClusterModule } from './cluster/cluster.module';
import { FrameworksModule } from './frameworks/frameworks.module';
import { HistoryModule } from './history/history.module';
import { OffersModule } from './offers/offers.module';
import { OperationsModule } from './operations/operations.module';
import { TasksModule } from './tasks/tasks.module';
import { SandboxesModule } from './sandboxes/sandboxes.module';
import { ExecutorsModule } from './executors/executors.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { ReservationsModule } from './reservations/reservations.module';
import { VolumesModule } from './volumes/volumes.module';
import { RolesModule } from './roles/roles.module';
import { WhatIfModule } from './what-if/what-if.module';
import { MesosModule } from './mesos/mesos.module';
import { MesosOperatorModule } from './mesos-operator/mesos-operator.module';
import { WhitelistModule } from './whitelist/whitelist.module';
import { AllocationModule } from './allocation/allocation.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { PrincipalsModule } from './principals/principals.module';
import { APP_CONFIG, type AppConfig } from './config/config.schema';
import { LOADED_MODULES } from './config/config.modules';
import { LoadedModules } from '@arbiter/modules';
import { Database } from './database/database.service';
import { ClusterEventsModule } from './leadership/cluster-events';
import { LeadershipModule } from './leadership/leadership.module';
import { OnLeaderInterceptor } from './leadership/on-leader';
import { CLOCK, type Clock, SystemClock } from './kernel/clock';
import { MasterModule } from './master/master.module';
import { Master } from './master-life';
import { HealthController } from './health/health.controller';
import { Metrics } from './health/metrics';
import { MetricsInterceptor } from './health/metrics.interceptor';
import { CoalesceInterceptor } from './app/coalesce';

/** Modules the master and the operator API share. */
const SHARED_MODULES = [LeadershipModule, ClusterEventsModule, AuthModule, PrincipalsModule, AuditModule, AclsModule, AllocationModule];

/** Feature modules of the operator API; each owns its controllers, services, entities and errors. */
const FEATURE_MODULES = [
  ClusterModule,
  AgentsModule,
  WhitelistModule,
  RolesModule,
  ReservationsModule,
  VolumesModule,
  MaintenanceModule,
  FrameworksModule,
  OffersModule,
  OperationsModule,
  TasksModule,
  ExecutorsModule,
  HistoryModule,
  WhatIfModule,
  SandboxesModule,
  MesosModule,
  MesosOperatorModule,
];

/** Use cases that span nouns (no entities of their own): the agents' and frameworks' lives in the master, its sync with the database, the sockets' routing. */
const USE_CASE_MODULES = [AgentLifecycleModule, FrameworkLifecycleModule, ClusterSyncModule, GatewaysModule];

@Global()
@Module({})
class CoreModule {
  static forRoot(config: AppConfig, dataSource: DataSource, clock: Clock, modules: LoadedModules): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: LOADED_MODULES, useValue: modules },
        { provide: DataSource, useValue: dataSource },
        { provide: CLOCK, useValue: clock },
        Database,
        Metrics,
      ],
      exports: [APP_CONFIG, LOADED_MODULES, DataSource, CLOCK, Database, Metrics],
    };
  }
}

@Module({})
export class AppModule {
  /** `clock`: the system's unless given another (tests pass a ManualClock); `modules`: those loaded at start (none unless given). */
  static forRoot(
    config: AppConfig,
    dataSource: DataSource,
    clock: Clock = new SystemClock(),
    modules: LoadedModules = LoadedModules.none(),
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, dataSource, clock, modules),
        ...SHARED_MODULES,
        MasterModule,
        ...FEATURE_MODULES,
        ...USE_CASE_MODULES,
      ],
      controllers: [HealthController],
      providers: [
        Master,
        // First: the body is read after the guard and before anything else (app/body-reader.ts).
        { provide: APP_INTERCEPTOR, useClass: BodyInterceptor },
        { provide: APP_INTERCEPTOR, useClass: MetricsInterceptor },
        { provide: APP_INTERCEPTOR, useClass: OnLeaderInterceptor },
        { provide: APP_INTERCEPTOR, useClass: CoalesceInterceptor },
      ],
    };
  }
}

/** Every entity of the schema: those the modules own. The migrations are generated from these. */
export const ENTITIES = entitiesOf([...SHARED_MODULES, ...FEATURE_MODULES]);

/** A data source over the schema's entities (the server's, the `arbiter db` commands', the tests'). */
export function createDataSource(url: string, overrides?: DataSourceOverrides): DataSource {
  return dataSourceFor(url, ENTITIES, overrides);
}
