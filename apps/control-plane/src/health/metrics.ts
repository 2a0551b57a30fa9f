/** Prometheus metrics of the control plane (prom-client), served at GET /metrics. */
import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'arbiter_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'arbiter_http_request_duration_seconds',
    help: 'HTTP request duration by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  // The master's events (counted by the leader; a new leader starts from zero).

  readonly cycles = new Counter({
    name: 'arbiter_allocation_cycles_total',
    help: 'allocation cycles run',
    registers: [this.registry],
  });

  readonly cycleDuration = new Histogram({
    name: 'arbiter_allocation_cycle_duration_seconds',
    help: "the allocator's work in one allocation cycle (its slices together, the pauses between them left out)",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly cycleSlices = new Histogram({
    name: 'arbiter_allocation_cycle_slice_seconds',
    help: 'time one slice of an allocation cycle holds the event loop before requests and messages get their turn',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
    registers: [this.registry],
  });

  readonly offers = new Counter({
    name: 'arbiter_offers_total',
    help: 'offers by what became of them: made, accepted, declined, rescinded',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly statusUpdates = new Counter({
    name: 'arbiter_status_updates_total',
    help: 'status updates recorded, by source (SOURCE_AGENT, SOURCE_MASTER, ...)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  readonly statusUpdateLag = new Histogram({
    name: 'arbiter_status_update_lag_seconds',
    help: "from a status update's timestamp (when its agent saw the change) to its record",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly taskEnds = new Counter({
    name: 'arbiter_task_ends_total',
    help: 'tasks that ended, by terminal state and reason',
    labelNames: ['state', 'reason'] as const,
    registers: [this.registry],
  });

  readonly taskHealth = new Counter({
    name: 'arbiter_task_health_updates_total',
    help: "updates that changed a task's health (healthy true or false), and health-check kills (kill: a task ended KILLED by its health check)",
    labelNames: ['healthy', 'kill'] as const,
    registers: [this.registry],
  });

  readonly acknowledgements = new Counter({
    name: 'arbiter_acknowledgements_total',
    help: 'status update acknowledgements recorded',
    registers: [this.registry],
  });

  readonly executorMessages = new Counter({
    name: 'arbiter_executor_messages_total',
    help: 'framework messages relayed between schedulers and their executors, by direction (to_executor, to_scheduler)',
    labelNames: ['direction'] as const,
    registers: [this.registry],
  });

  readonly executorMessageBytes = new Counter({
    name: 'arbiter_executor_message_bytes_total',
    help: 'bytes of framework messages relayed, by direction (to_executor, to_scheduler)',
    labelNames: ['direction'] as const,
    registers: [this.registry],
  });

  readonly executorEnds = new Counter({
    name: 'arbiter_executor_ends_total',
    help: 'executors that ended, by reason (REASON_EXECUTOR_REGISTRATION_TIMEOUT counts registration timeouts)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly volumeOperations = new Counter({
    name: 'arbiter_volume_operations_total',
    help: "persistent volumes created and destroyed, by operation (create, destroy) and source (offer: a framework's CREATE or DESTROY; operator: the REST or Mesos operator API)",
    labelNames: ['operation', 'source'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'arbiter_' });
  }

  /** arbiter_leader (1 on the leader, 0 on a standby) and arbiter_leader_epoch, read at each scrape. */
  watchLeadership(read: () => { leader: boolean; epoch: number | null }): void {
    new Gauge({
      name: 'arbiter_leader',
      help: 'whether this replica leads (1) or is a standby (0)',
      registers: [this.registry],
      collect() {
        this.set(read().leader ? 1 : 0);
      },
    });
    new Gauge({
      name: 'arbiter_leader_epoch',
      help: 'the current leadership term as this replica last saw it (0 before any)',
      registers: [this.registry],
      collect() {
        this.set(read().epoch ?? 0);
      },
    });
  }
}
