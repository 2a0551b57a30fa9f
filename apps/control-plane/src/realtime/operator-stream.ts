/** The /events namespace: what happens in the cluster, streamed to operators (the dashboard), from the leader. */
import { PrincipalKind } from '../auth/principal.entity';
import { Injectable } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { EVENTS_NAMESPACE, type OperatorEvents } from '@arbiter/contracts';
import { Realtime } from './realtime';

@Injectable()
export class OperatorStream {
  private ns?: Namespace;

  constructor(private readonly realtime: Realtime) {}

  /** Opens the namespace (at application bootstrap, once the HTTP server exists). */
  open(): void {
    // What it streams happens on the leader: a standby sends operators there.
    this.ns ??= this.realtime.namespace(EVENTS_NAMESPACE, [PrincipalKind.ADMIN, PrincipalKind.OPERATOR, PrincipalKind.VIEWER], {
      leaderOnly: true,
    });
  }

  emit<E extends keyof OperatorEvents>(event: E, payload: Parameters<OperatorEvents[E]>[0]): void {
    // Nobody listening, nothing to encode (socket.io encodes a broadcast before looking for
    // sockets; under load these are thousands of offer and task events a second).
    if (this.ns?.sockets.size) this.ns.emit(event, payload);
  }
}
