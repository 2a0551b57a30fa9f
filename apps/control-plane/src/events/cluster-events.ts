/**
 * Changes to the cluster's configuration, announced after they commit. The allocation loop
 * listens to keep the allocator's state in step with the database; the /events stream
 * forwards them to operators.
 */
import { EventEmitter } from 'node:events';
import { Global, Injectable, Module } from '@nestjs/common';

export type ClusterEvent =
  | { type: 'agent.updated'; agentId: string }
  | { type: 'whitelist.updated'; hostnames: string[] | null }
  | { type: 'weights.updated'; weights: Record<string, number> }
  | { type: 'quota.updated'; role: string }
  | { type: 'quota.removed'; role: string }
  | { type: 'reservation.created'; agentId: string; reservationId: string }
  | { type: 'reservation.removed'; agentId: string; reservationId: string }
  | { type: 'maintenance.updated' };

@Injectable()
export class ClusterEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(100);
  }

  emit(event: ClusterEvent): void {
    this.emitter.emit('event', event);
  }

  /** Returns a function that unsubscribes. */
  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}

@Global()
@Module({ providers: [ClusterEvents], exports: [ClusterEvents] })
export class ClusterEventsModule {}
