/**
 * Frameworks away from the master: a disconnection (offers rescinded, tasks kept), and the
 * failover timeout after which a framework that stays away is torn down. The timers are this
 * class's alone and live for one term: a step-down cancels them all.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { SYSTEM_ACTOR } from '../auth/auth.actor';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CLOCK, type Clock, type TimerHandle } from '../kernel/clock';
import { ClusterState, type FrameworkConnection, type FrameworkRuntime, sessionOf } from '../master/cluster-state';
import { FrameworkRegistry } from '../master/framework-registry';
import { EventualWrites } from '../kernel/eventual-writes';
import { Kernel } from '../kernel/kernel';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import type { FrameworkEntity } from '../frameworks/framework.entity';
import { FrameworkState } from '../frameworks/framework.entity';
import { FrameworkRemoval } from './framework-removal.handler';
import { FrameworkSessionsRepository } from './framework-sessions.repository';

/** How soon a teardown past the failover timeout that failed is tried again. */
export const FAILOVER_RETRY_MS = 5000;

@Injectable()
export class FrameworkFailover {
  private readonly logger = new Logger('FrameworkFailover');
  /** The failover timer of each framework that is away, in this term. */
  private readonly timers: () => Map<string, TimerHandle>;

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: FrameworkRegistry,
    private readonly frameworks: FrameworkSessionsRepository,
    private readonly offers: OfferRescinds,
    private readonly inverseOffers: InverseOffers,
    private readonly removal: FrameworkRemoval,
    private readonly writes: EventualWrites,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.timers = kernel.perTerm(() => new Map<string, TimerHandle>());
    removal.onRemoved((frameworkId) => this.cancel(frameworkId));
  }

  /** A framework known from the database at start: in the allocator, inactive until it subscribes again. */
  async restore(fw: FrameworkEntity): Promise<void> {
    this.state.allocator.addFramework(fw.id, fw.roles, {
      capabilities: fw.capabilities,
      active: false,
      suppressedRoles: fw.suppressedRoles,
    });
    const runtime: FrameworkRuntime = {
      id: fw.id,
      name: fw.name,
      roles: fw.roles,
      capabilities: fw.capabilities,
      failoverTimeoutSeconds: fw.failoverTimeoutSeconds,
      checkpoint: fw.checkpoint,
      // Who may see its events on /events (view_frameworks) until it subscribes again.
      user: fw.user,
    };
    this.registry.put(runtime);
    if (fw.state === FrameworkState.ACTIVE) await this.frameworks.markDisconnected(fw.id, this.clock.date());
    // Every framework gets the re-subscription grace before its failover timeout starts again:
    // a restart or a leader change (maybe several in a row) is no disconnection of its doing.
    this.startFailover(runtime, this.config.frameworkResubscribeGrace);
  }

  disconnected(socket: FrameworkConnection): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.frameworks.get(String(sessionOf(socket).frameworkId));
      if (runtime?.socket !== socket) return;
      this.registry.disconnected(runtime.id);
      this.state.allocator.deactivateFramework(runtime.id);
      // The failover timeout runs from now whatever the database says meanwhile.
      this.startFailover(runtime);
      await this.offers.ofFramework(runtime.id, 'the framework disconnected');
      this.inverseOffers.rescindOfFramework(runtime.id, 'the framework disconnected');
      const at = this.clock.date();
      await this.writes.write('background', `recording framework ${runtime.id} as disconnected`, () =>
        this.frameworks.markDisconnected(runtime.id, at),
      );
    });
  }

  /**
   * After the failover timeout a disconnected framework is torn down. A teardown that fails (the
   * database is away) is logged and tried again after FAILOVER_RETRY_MS while the framework stays
   * away, so no framework outlives its timeout by more than the outage.
   */
  startFailover(runtime: FrameworkRuntime, graceSeconds = 0, delayMs = (graceSeconds + runtime.failoverTimeoutSeconds) * 1000): void {
    this.cancel(runtime.id);
    const term = this.kernel.term;
    const timers = this.timers();
    timers.set(
      runtime.id,
      this.clock.after(delayMs, () => {
        timers.delete(runtime.id);
        const away = () => !runtime.socket && this.state.frameworks.get(runtime.id) === runtime && this.kernel.term === term;
        this.kernel
          .exclusive(async () => {
            if (away())
              await this.removal.remove(
                runtime.id,
                graceSeconds
                  ? `did not re-subscribe within ${graceSeconds} s of the control plane's start, then its failover timeout (${runtime.failoverTimeoutSeconds} s)`
                  : `disconnected for longer than its failover timeout (${runtime.failoverTimeoutSeconds} s)`,
                SYSTEM_ACTOR,
              );
          })
          .catch((err: unknown) => {
            this.logger.error(
              { err, frameworkId: runtime.id, retryInMs: FAILOVER_RETRY_MS },
              'tearing down a framework past its failover timeout failed; trying again',
            );
            if (away() && !this.kernel.stopping) this.startFailover(runtime, graceSeconds, FAILOVER_RETRY_MS);
          });
      }),
    );
  }

  /** Stops a framework's failover timer (it came back, or is gone). */
  cancel(frameworkId: string): void {
    const timers = this.timers();
    timers.get(frameworkId)?.cancel();
    timers.delete(frameworkId);
  }

  /** Stops every failover timer (the term is over). */
  cancelAll(): void {
    const timers = this.timers();
    for (const t of timers.values()) t.cancel();
    timers.clear();
  }
}
