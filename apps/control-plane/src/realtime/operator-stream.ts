/**
 * The /events namespace: what happens in the cluster, streamed to operators (the dashboard), from
 * the leader. A socket whose principal's view ACLs are limited gets only the events of the
 * frameworks and roles it may see (`setView`, given by the master: view_frameworks by the
 * framework's user, view_roles), and of a cycle only their shares.
 */
import { PrincipalKind } from '../auth/principal.entity';
import type { Actor } from '../auth/auth.actor';
import { Injectable } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { EVENTS_NAMESPACE, type OperatorEvents } from '@arbiter/contracts';
import { Realtime } from './realtime';

/** What one principal may see of the stream; null when it sees everything. */
export interface EventView {
  framework(id: string): boolean;
  role(role: string): boolean;
  /** An agent, by its id (and its hostname, when the event names it: a removed agent is known no more). */
  agent(id: string, hostname?: string): boolean;
}

type Payload<E extends keyof OperatorEvents> = Parameters<OperatorEvents[E]>[0];

export type OperatorListener = <E extends keyof OperatorEvents>(event: E, payload: Payload<E>) => void;

@Injectable()
export class OperatorStream {
  private ns?: Namespace;
  private viewOf: (actor: Actor) => EventView | null = () => null;
  /** Who hears every event besides the sockets (the Mesos operator API's SUBSCRIBE streams). */
  private readonly listeners = new Set<OperatorListener>();

  constructor(private readonly realtime: Realtime) {}

  /** Opens the namespace (at application bootstrap, once the HTTP server exists). */
  open(): void {
    // What it streams happens on the leader: a standby sends operators there.
    this.ns ??= this.realtime.namespace(EVENTS_NAMESPACE, [PrincipalKind.ADMIN, PrincipalKind.OPERATOR, PrincipalKind.VIEWER], {
      leaderOnly: true,
    });
  }

  /** How to tell what a principal may see (read at each event, so ACL changes apply at once). */
  setView(viewOf: (actor: Actor) => EventView | null): void {
    this.viewOf = viewOf;
  }

  /** Calls `listener` with every event (each listener filters by its own view: `visible`); returns how to stop. */
  listen(listener: OperatorListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What `actor` may see (null: everything). */
  view(actor: Actor): EventView | null {
    return this.viewOf(actor);
  }

  emit<E extends keyof OperatorEvents>(event: E, payload: Payload<E>): void {
    for (const listener of this.listeners) listener(event, payload);
    // Nobody listening, nothing to encode (socket.io encodes a broadcast before looking for
    // sockets; under load these are thousands of offer and task events a second).
    if (!this.ns?.sockets.size) return;
    const everything: string[] = [];
    for (const socket of this.ns.sockets.values()) {
      const actor = (socket.data as { actor?: Actor }).actor;
      const view = actor ? this.viewOf(actor) : null;
      if (!view) everything.push(socket.id);
      else {
        const seen = visible(event, payload, view);
        if (seen) socket.emit(event, ...([seen] as Parameters<OperatorEvents[E]>));
      }
    }
    // One encoding for every socket that sees it all.
    if (everything.length === this.ns.sockets.size) this.ns.emit(event, payload);
    else if (everything.length) this.ns.to(everything).emit(event, payload);
  }
}

/** What of one event a limited view shows: the event, a part of it (a cycle's shares), or nothing. */
export function visible<E extends keyof OperatorEvents>(event: E, payload: Payload<E>, view: EventView): Payload<E> | null {
  const p = payload as Record<string, unknown>;
  if (event === 'cycle') {
    const cycle = payload as Payload<'cycle'>;
    const keep = (shares: Record<string, number>, see: (k: string) => boolean) =>
      Object.fromEntries(Object.entries(shares).filter(([k]) => see(k)));
    return {
      ...cycle,
      shares: { roles: keep(cycle.shares.roles, (r) => view.role(r)), frameworks: keep(cycle.shares.frameworks, (f) => view.framework(f)) },
    };
  }
  if (event.startsWith('agent.') && typeof p.agentId === 'string')
    return view.agent(p.agentId, typeof p.hostname === 'string' ? p.hostname : undefined) ? payload : null;
  if (typeof p.frameworkId === 'string' && !view.framework(p.frameworkId)) return null;
  if (typeof p.role === 'string' && !view.role(p.role)) return null;
  if (Array.isArray(p.roles)) return { ...p, roles: (p.roles as string[]).filter((r) => view.role(r)) } as Payload<E>;
  return payload;
}
