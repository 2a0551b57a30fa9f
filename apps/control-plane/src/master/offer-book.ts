/**
 * The outstanding offers: made by a cycle, gone when answered, rescinded or expired. The book is
 * their one owner; it indexes them by agent and by framework, so taking an agent's or a
 * framework's offers out scans nothing else, and keeps them in the order they were made, so the
 * expired ones are found from the oldest without looking at the rest.
 */
import type { Resources } from '@arbiter/allocator';
import { assertOrdered } from '../kernel/order';

export interface OutstandingOffer {
  readonly id: string;
  readonly frameworkId: string;
  readonly agentId: string;
  readonly role: string;
  readonly resources: Resources;
  /** Clock time (ms) when it was made (for the offer timeout). */
  readonly createdAt: number;
  /** Sent to its framework (once its cycle was recorded). */
  readonly sent: boolean;
}

/** What may read the outstanding offers without changing them. */
export interface OfferBookView {
  get(id: string): OutstandingOffer | undefined;
  readonly size: number;
  values(): Iterable<OutstandingOffer>;
  /** The outstanding offers of an agent's resources. */
  onAgent(agentId: string): OutstandingOffer[];
}

export class OfferBook implements OfferBookView {
  /** In the order they were made (a Map keeps insertion order), which is the order of `createdAt`. */
  private readonly byId = new Map<string, { -readonly [K in keyof OutstandingOffer]: OutstandingOffer[K] }>();
  private readonly byAgent = new Map<string, Set<string>>();
  private readonly byFramework = new Map<string, Set<string>>();

  get(id: string): OutstandingOffer | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  values(): Iterable<OutstandingOffer> {
    return this.byId.values();
  }

  onAgent(agentId: string): OutstandingOffer[] {
    return [...(this.byAgent.get(agentId) ?? [])].flatMap((id) => this.byId.get(id) ?? []);
  }

  /** Books offers a cycle made (not sent yet; offer ids are never reused). */
  add(offers: Iterable<Omit<OutstandingOffer, 'sent'>>): void {
    assertOrdered('booking offers');
    for (const o of offers) {
      this.byId.set(o.id, { ...o, sent: false });
      index(this.byAgent, o.agentId, o.id);
      index(this.byFramework, o.frameworkId, o.id);
    }
  }

  /** Marks an offer sent to its framework; false if it is no longer outstanding (taken meanwhile). */
  markSent(id: string): boolean {
    assertOrdered('marking an offer sent');
    const o = this.byId.get(id);
    if (!o) return false;
    o.sent = true;
    return true;
  }

  /** Takes offers out (answered, rescinded): those still outstanding, as they were. */
  take(ids: Iterable<string>): OutstandingOffer[] {
    assertOrdered('taking offers out');
    const taken: OutstandingOffer[] = [];
    for (const id of ids) {
      const o = this.byId.get(id);
      if (!o) continue;
      this.byId.delete(id);
      unindex(this.byAgent, o.agentId, id);
      unindex(this.byFramework, o.frameworkId, id);
      taken.push(o);
    }
    return taken;
  }

  /** Takes out every offer of an agent's resources. */
  takeOnAgent(agentId: string): OutstandingOffer[] {
    return this.take([...(this.byAgent.get(agentId) ?? [])]);
  }

  /** Takes out every offer made to a framework. */
  takeOfFramework(frameworkId: string): OutstandingOffer[] {
    return this.take([...(this.byFramework.get(frameworkId) ?? [])]);
  }

  /** Takes out the offers made at or before `at` (clock ms), oldest first. */
  takeMadeBy(at: number): OutstandingOffer[] {
    const ids: string[] = [];
    for (const o of this.byId.values()) {
      if (o.createdAt > at) break;
      ids.push(o.id);
    }
    return this.take(ids);
  }

  clear(): void {
    this.byId.clear();
    this.byAgent.clear();
    this.byFramework.clear();
  }
}

function index(by: Map<string, Set<string>>, key: string, id: string): void {
  let ids = by.get(key);
  if (!ids) by.set(key, (ids = new Set()));
  ids.add(id);
}

function unindex(by: Map<string, Set<string>>, key: string, id: string): void {
  const ids = by.get(key);
  ids?.delete(id);
  if (ids?.size === 0) by.delete(key);
}
