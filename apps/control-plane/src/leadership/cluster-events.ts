/**
 * Changes to the cluster's configuration, announced after they commit. The allocation loop
 * listens to keep the allocator's state in step with the database; the /events stream
 * forwards them to operators. An event goes to this replica's listeners at once and, through
 * PostgreSQL (NOTIFY), to every other replica's, so a change made through a standby reaches
 * the leader's allocator within a moment.
 */
import { EventEmitter } from 'node:events';
import { Global, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { Leadership } from './leadership.service';

export type ClusterEvent =
  | { type: 'agent.updated'; agentId: string }
  | { type: 'whitelist.updated'; hostnames: string[] | null }
  | { type: 'weights.updated'; weights: Record<string, number> }
  | { type: 'quota.updated'; role: string }
  | { type: 'quota.removed'; role: string }
  | { type: 'reservation.created'; agentId: string; reservationId: string }
  | { type: 'reservation.removed'; agentId: string; reservationId: string }
  | { type: 'volume.created'; agentId: string; volumeId: string }
  | { type: 'volume.destroyed'; agentId: string; volumeId: string }
  | { type: 'maintenance.updated' }
  /** Reload the configuration (weights, quota, whitelist, maintenance): events may have been missed. */
  | { type: 'config.resync' };

/** The channel replicas announce events on. */
const CLUSTER_EVENTS_CHANNEL = 'arbiter_cluster_events';
/** NOTIFY payloads are limited to 8000 bytes; a larger event is sent as a resync. */
const MAX_PAYLOAD = 7_900;

interface Envelope {
  from: string;
  event: ClusterEvent;
}

@Injectable()
export class ClusterEvents implements OnModuleInit {
  private readonly logger = new Logger('ClusterEvents');
  private readonly emitter = new EventEmitter();

  constructor(private readonly leadership: Leadership) {
    this.emitter.setMaxListeners(100);
  }

  onModuleInit(): void {
    this.leadership.listen(CLUSTER_EVENTS_CHANNEL, (payload) => this.received(payload));
    this.leadership.onReconnect(() => this.emitter.emit('event', { type: 'config.resync' } satisfies ClusterEvent));
  }

  /** Announces a committed change here and to the other replicas. */
  emit(event: ClusterEvent): void {
    this.emitter.emit('event', event);
    let payload = JSON.stringify({ from: this.leadership.replica, event } satisfies Envelope);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD)
      payload = JSON.stringify({ from: this.leadership.replica, event: { type: 'config.resync' } } satisfies Envelope);
    this.leadership.notify(CLUSTER_EVENTS_CHANNEL, payload).catch((err: unknown) =>
      // The other replicas resync when their connection comes back; a lost notify is logged.
      this.logger.error({ err, event: event.type }, 'could not announce a change to the other replicas'),
    );
  }

  /** Returns a function that unsubscribes. */
  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  private received(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      this.logger.warn({ payload: payload.slice(0, 200) }, 'unreadable cluster event');
      return;
    }
    if (envelope.from === this.leadership.replica || typeof (envelope.event as unknown) !== 'object') return;
    this.emitter.emit('event', envelope.event);
  }
}

@Global()
@Module({ providers: [ClusterEvents], exports: [ClusterEvents] })
export class ClusterEventsModule {}
