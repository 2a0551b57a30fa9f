/** A scheduler on the SDK that records what it receives, for master-level tests. */
import { type Offer, Scheduler, type StatusUpdate, type Subscribe } from '@arbiter/scheduler-sdk';
import { until } from './until';
import { ADMIN_TOKEN, type TestControlPlane } from './app';

/** A scheduler that records what it receives. */
export class Recorder {
  readonly s: Scheduler;
  readonly offers: Offer[] = [];
  readonly updates: StatusUpdate[] = [];
  readonly rescinded: string[] = [];
  /** Subscribes with the admin's token unless `options.token` names another principal's. */
  constructor(t: TestControlPlane, framework: Subscribe, options: { autoAcknowledge?: boolean; token?: string } = {}) {
    this.s = new Scheduler({ master: t.cp.url, token: ADMIN_TOKEN, framework, ...options });
    this.s.on('offers', (o) => this.offers.push(...o));
    this.s.on('update', (u) => this.updates.push(u));
    this.s.on('rescind', (id) => this.rescinded.push(id));
  }
  /** The newest offer not yet used. */
  async nextOffer(): Promise<Offer> {
    await until(() => this.offers.length > 0);
    const offer = this.offers.shift();
    if (!offer) throw new Error('the offer was taken meanwhile');
    return offer;
  }
  states(taskId: string) {
    return this.updates.filter((u) => u.taskId === taskId).map((u) => u.state);
  }
}
