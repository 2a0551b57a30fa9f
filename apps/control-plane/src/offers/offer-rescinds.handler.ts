/**
 * The outstanding offers' way out other than an answer: rescinded (their agent or framework
 * left, maintenance, the agent's reservations changed, a re-subscription) or expired after the
 * offer timeout. Their resources go back to the allocator and their frameworks are told.
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState } from '../master/cluster-state';
import { Metrics } from '../health/metrics';
import { EventualWrites } from '../kernel/eventual-writes';
import { Outbox } from '../master/outbox';
import type { OutstandingOffer } from '../master/offer-book';
import { OfferState } from './offer.entity';
import { OffersRepository } from './offers.repository';

@Injectable()
export class OfferRescinds {
  constructor(
    private readonly writes: EventualWrites,
    private readonly state: ClusterState,
    private readonly offers: OffersRepository,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly outbox: Outbox,
  ) {}

  /** Rescinds the offers of an agent's resources. */
  onAgent(agentId: string, reason: string): Promise<void> {
    return this.rescind(this.state.offers.takeOnAgent(agentId), reason);
  }

  /** Rescinds the offers made to a framework. */
  ofFramework(frameworkId: string, reason: string): Promise<void> {
    return this.rescind(this.state.offers.takeOfFramework(frameworkId), reason);
  }

  /** Rescinds a framework's offers made to roles it no longer has. */
  outsideRoles(frameworkId: string, roles: string[], reason: string): Promise<void> {
    const ids = [...this.state.offers.values()].filter((o) => o.frameworkId === frameworkId && !roles.includes(o.role)).map((o) => o.id);
    return this.rescind(this.state.offers.take(ids), reason);
  }

  /** Rescinds the offers older than the offer timeout (when one is set). */
  async expire(): Promise<void> {
    if (!this.config.offerTimeout) return;
    await this.rescind(this.state.offers.takeMadeBy(this.clock.now() - this.config.offerTimeout * 1000), 'the offer timed out');
  }

  /** Gives offers taken out of the book back to the allocator and tells their frameworks. */
  private async rescind(gone: OutstandingOffer[], reason: string): Promise<void> {
    if (!gone.length) return;
    this.metrics.offers.inc({ outcome: 'rescinded' }, gone.length);
    for (const o of gone) this.state.allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
    const at = this.clock.date();
    await this.writes.write('background', `rescinding ${gone.length} offer(s): ${reason}`, () =>
      this.offers.close(new Map(gone.map((o) => [o.id, OfferState.RESCINDED])), at),
    );
    for (const o of gone) {
      if (o.sent) this.outbox.rescind(o.frameworkId, o.id, reason);
      this.stream.emit('offer.closed', { offerId: o.id, state: OfferState.RESCINDED });
    }
  }
}
