/**
 * The master's life: at start its state is rebuilt from the database, then operator changes
 * are applied as they commit and the periodic work runs on the clock (allocation cycles, agent
 * timeouts, offer expiry, resends of unacknowledged updates, heartbeats, retention). The work
 * itself belongs to the handlers of each noun.
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AGENT_HEARTBEAT_SECONDS, AgentSessions } from '../agents/agent-sessions.handler';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AllocatorSync } from '../allocation/allocator-sync.handler';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { ClusterEvents } from '../events/cluster-events';
import { FRAMEWORK_HEARTBEAT_SECONDS, FrameworkSessions } from '../frameworks/framework-sessions.handler';
import { Retention } from '../history/retention.handler';
import { OfferBook } from '../offers/offer-book.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { CLOCK, type Clock, type TimerHandle } from './clock';
import { ClusterState } from './cluster-state';
import { Kernel } from './kernel';

/** Unacknowledged status updates are sent again this often. */
const UPDATE_RETRY_MS = 5_000;
/** Agents' silence and offers' age are checked this often. */
const CHECK_MS = 1_000;
const PRUNE_MS = 60_000;

@Injectable()
export class Master implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Master');
  private readonly timers: TimerHandle[] = [];
  private unsubscribe?: () => void;

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly sync: AllocatorSync,
    private readonly loop: AllocationLoop,
    private readonly agents: AgentSessions,
    private readonly frameworks: FrameworkSessions,
    private readonly offers: OfferBook,
    private readonly updates: TaskUpdates,
    private readonly retention: Retention,
    private readonly events: ClusterEvents,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.kernel.exclusive(() => this.sync.rebuild());
    this.unsubscribe = this.events.subscribe((e) => {
      this.kernel.exclusive(() => this.sync.apply(e)).catch((err: unknown) => this.logger.error({ err }, 'cluster event'));
    });
    this.every(this.config.allocationInterval * 1000, () => this.loop.requestCycle(0));
    // Only when there is something to do: an exclusive turn waits for every write in flight.
    this.every(CHECK_MS, () => (this.agents.anySilent() ? this.agents.checkSilent() : undefined));
    this.every(CHECK_MS, () => (this.config.offerTimeout ? this.kernel.exclusive(() => this.offers.expire()) : undefined));
    this.every(UPDATE_RETRY_MS, () => this.updates.resendUnacknowledged());
    this.every(AGENT_HEARTBEAT_SECONDS * 1000, () => this.agents.recordSeen());
    this.every(FRAMEWORK_HEARTBEAT_SECONDS * 1000, () => this.frameworks.heartbeat());
    this.every(PRUNE_MS, () => this.retention.prune());
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    for (const t of this.timers) t.cancel();
    for (const fw of this.state.frameworks.values()) fw.failoverTimer?.cancel();
    // Let the work in flight finish before the database goes.
    await this.kernel.stop();
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
