/**
 * The master's life. It runs only on the leader (see leadership/): when this replica wins a
 * term its state is rebuilt from the database, then operator changes are applied as they
 * commit (on any replica) and the periodic work runs on the clock (allocation cycles, agent
 * timeouts, offer expiry, resends of unacknowledged updates, heartbeats, retention). When it
 * loses its term everything stops at once: timers, sessions (agents and frameworks reconnect
 * to the new leader) and the work in flight, whose writes the fence refuses. The work itself
 * belongs to the handlers of each noun. Part of the composition root: it starts and stops the
 * handlers of every noun, so no noun folder lists them.
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AgentLiveness } from './agent-lifecycle/agent-liveness.handler';
import { AllocationLoop } from './allocation/allocation-loop.handler';
import { AllocatorSync } from './cluster-sync/allocator-sync.handler';
import { APP_CONFIG, type AppConfig } from './config/config.schema';
import { ClusterEvents } from './leadership/cluster-events';
import { FrameworkFailover } from './framework-lifecycle/framework-failover.handler';
import { AGENT_HEARTBEAT_SECONDS } from './master/agent-registry';
import { FRAMEWORK_HEARTBEAT_SECONDS } from './master/framework-registry';
import { Outbox } from './master/outbox';
import { Retention } from './history/retention.handler';
import { Leadership } from './leadership/leadership.service';
import { OfferRescinds } from './offers/offer-rescinds.handler';
import { Realtime } from './realtime/realtime';
import { TaskUpdates } from './tasks/task-updates.handler';
import { CLOCK, type Clock, type TimerHandle } from './kernel/clock';
import { ClusterState } from './master/cluster-state';
import { Kernel } from './kernel/kernel';

/** Unacknowledged status updates are sent again this often. */
const UPDATE_RETRY_MS = 5_000;
/** Agents' silence and offers' age are checked this often. */
const CHECK_MS = 1_000;
const PRUNE_MS = 60_000;

@Injectable()
export class Master implements OnApplicationShutdown {
  private readonly logger = new Logger('Master');
  private timers: TimerHandle[] = [];
  private unsubscribe?: () => void;

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly sync: AllocatorSync,
    private readonly loop: AllocationLoop,
    private readonly agents: AgentLiveness,
    private readonly failover: FrameworkFailover,
    private readonly outbox: Outbox,
    private readonly offers: OfferRescinds,
    private readonly updates: TaskUpdates,
    private readonly retention: Retention,
    private readonly events: ClusterEvents,
    private readonly leadership: Leadership,
    private readonly realtime: Realtime,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Competes for leadership (once the API listens on `port`); a lone replica leads when this resolves. */
  async start(port: number): Promise<void> {
    await this.leadership.start({ lead: () => this.lead(), stepDown: () => this.stepDown() }, port);
  }

  /** Starts a term as the leader (Leadership calls it once this replica has won the lock). */
  async lead(): Promise<void> {
    this.kernel.restart();
    const term = this.kernel.term;
    this.realtime.openSessions();
    await this.kernel.exclusive(() => this.sync.rebuild());
    // Stepped down while rebuilding (the lock lost, say): this term's timers must not start.
    if (this.kernel.ended(term)) return;
    this.unsubscribe = this.events.subscribe((e) => {
      this.kernel.exclusive(() => this.sync.apply(e)).catch((err: unknown) => this.logger.error({ err }, 'cluster event'));
    });
    this.every(this.config.allocationInterval * 1000, () => this.loop.requestCycle(0));
    // Only when there is something to do: an exclusive turn waits for every write in flight.
    this.every(CHECK_MS, () => (this.agents.anySilent() ? this.agents.checkSilent() : undefined));
    this.every(CHECK_MS, () => (this.config.offerTimeout ? this.kernel.exclusive(() => this.offers.expire()) : undefined));
    this.every(UPDATE_RETRY_MS, () => this.updates.resendUnacknowledged());
    this.every(AGENT_HEARTBEAT_SECONDS * 1000, () => this.agents.recordSeen());
    this.every(FRAMEWORK_HEARTBEAT_SECONDS * 1000, () => this.outbox.heartbeat());
    this.every(PRUNE_MS, () => this.retention.prune());
  }

  /** Stops at once: the term is over, whatever is in flight (Leadership calls it when the lock is lost). */
  stepDown(): Promise<void> {
    this.stopTimers();
    this.kernel.abandon();
    this.realtime.closeSessions();
    this.state.resetAllocator(this.config);
    return Promise.resolve();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopTimers();
    // Let the work in flight finish before the database goes, then give leadership up.
    await this.kernel.stop();
    await this.leadership.stop();
  }

  private stopTimers(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const t of this.timers.splice(0)) t.cancel();
    this.failover.cancelAll();
  }

  private every(ms: number, work: () => unknown): void {
    this.timers.push(
      this.clock.every(ms, () => {
        if (this.kernel.stopping) return;
        Promise.resolve(work()).catch((err: unknown) => this.logger.error({ err }, 'periodic task failed'));
      }),
    );
  }
}
