/**
 * A Mesos framework's connection: the streaming answer to its SUBSCRIBE call, in RecordIO
 * framing (`<length>\n<record>`), one record per event. The handlers see it as any framework
 * connection (FrameworkConnection): what they emit is turned into Mesos's events here. Events
 * emitted while the subscription is being answered wait until SUBSCRIBED has gone out. What
 * waits for the framework to read it (those events, and the response's buffer) is bounded
 * (kernel/outbound.ts): a framework that stops reading is cut off and what waited is dropped.
 */
import { randomUUID } from 'node:crypto';
import type { FrameworkEvents, MesosEventType } from '@arbiter/contracts';
import type { Response } from 'express';
import type { Actor } from '../auth/auth.actor';
import { type Outbound, type OutboundQueue, principalKey } from '../kernel/outbound';
import type { FrameworkConnection, SessionData } from '../master/cluster-state';
import { type EventContext, mesosInverseOffer, mesosOffer, mesosStatus, recordIo } from './mesos-events';
import type { MesosEncoding } from './mesos-encoding';
import { mesosExecutorFailure, mesosMessage } from './mesos-executor-codec';
import { mesosOperationStatus } from './mesos-operations-codec';

export interface AgentAddresses {
  address(agentId: string): { ip?: string; port?: number };
  /** Ids of a framework's executors running on an agent. */
  executorIds(agentId: string, frameworkId: string): string[];
  /** What a persistent volume on the agent is (its container path, mode, creator). */
  volume?(agentId: string, role: string, id: string): { containerPath: string; mode: string; principal: string } | undefined;
}

export class MesosStream implements FrameworkConnection {
  /** The Mesos-Stream-Id: every later call of the framework carries it. */
  readonly id = randomUUID();
  readonly data: SessionData;
  private pending: Buffer[] | undefined = [];
  private pendingBytes = 0;
  private ended = false;
  private readonly queue: OutboundQueue;
  /** Set once the subscription is answered. */
  context?: EventContext;

  constructor(
    private readonly res: Response,
    readonly encoding: MesosEncoding,
    /** Who subscribed: later calls on this stream must come from the same principal. */
    readonly actor: Actor,
    private readonly agents: AgentAddresses,
    outbound: Outbound,
  ) {
    this.queue = outbound.register(`mesos:${this.id}`, {
      queuedBytes: () => this.pendingBytes + this.res.writableLength,
      cut: () => this.end(true),
    });
    this.queue.claim(principalKey(actor));
    this.data = { outbound: this.queue };
    res.on('drain', () => this.queue.progressed());
    res.on('close', () => this.queue.release());
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Answers the subscription: status 200, the stream's headers, SUBSCRIBED, then what waited. */
  open(context: EventContext, subscribed: Record<string, unknown>): void {
    this.context = context;
    this.res.status(200);
    this.res.setHeader('Content-Type', this.encoding.contentType);
    this.res.setHeader('Mesos-Stream-Id', this.id);
    this.res.setHeader('Cache-Control', 'no-cache');
    this.res.flushHeaders();
    const waiting = this.pending ?? [];
    this.pending = undefined;
    this.pendingBytes = 0;
    this.send('SUBSCRIBED', subscribed);
    for (const record of waiting) this.write(record);
    this.queue.check();
  }

  emit<E extends keyof FrameworkEvents>(event: E, ...args: Parameters<FrameworkEvents[E]>): boolean {
    const ctx = this.context;
    const [m] = args as [unknown];
    switch (event) {
      case 'offers': {
        const { offers } = m as Parameters<FrameworkEvents['offers']>[0];
        if (!ctx) return false;
        return this.send('OFFERS', {
          offers: offers.map((o) =>
            mesosOffer(o, ctx, {
              ...this.agents.address(o.agentId),
              executorIds: this.agents.executorIds(o.agentId, o.frameworkId),
              volume: (role, id) => this.agents.volume?.(o.agentId, role, id),
            }),
          ),
        });
      }
      case 'rescind':
        return this.send('RESCIND', { offer_id: { value: (m as Parameters<FrameworkEvents['rescind']>[0]).offerId } });
      case 'inverseOffers':
        return this.send('INVERSE_OFFERS', {
          inverse_offers: (m as Parameters<FrameworkEvents['inverseOffers']>[0]).inverseOffers.map(mesosInverseOffer),
        });
      case 'update':
        return this.send('UPDATE', { status: mesosStatus((m as Parameters<FrameworkEvents['update']>[0]).status) });
      case 'rescindInverseOffer':
        return this.send('RESCIND_INVERSE_OFFER', {
          inverse_offer_id: { value: (m as Parameters<FrameworkEvents['rescindInverseOffer']>[0]).inverseOfferId },
        });
      case 'agentLost':
        // Mesos's FAILURE without an executor: the agent is gone.
        return this.send('FAILURE', { agent_id: { value: (m as Parameters<FrameworkEvents['agentLost']>[0]).agentId } });
      case 'heartbeat':
        return this.send('HEARTBEAT');
      case 'message':
        return this.send('MESSAGE', mesosMessage(m as Parameters<FrameworkEvents['message']>[0]));
      case 'operationStatus':
        return this.send('UPDATE_OPERATION_STATUS', {
          status: mesosOperationStatus((m as Parameters<FrameworkEvents['operationStatus']>[0]).status),
        });
      case 'failure':
        // Mesos's FAILURE with an executor: the executor ended (status: its wait status).
        return this.send('FAILURE', mesosExecutorFailure(m as Parameters<FrameworkEvents['failure']>[0]));
      default:
        return false;
    }
  }

  /** Sends one event (`body` goes in the field named after its type, as Mesos's Event has it). */
  send(type: MesosEventType, body?: Record<string, unknown>): boolean {
    if (this.ended) return false;
    const event: Record<string, unknown> = { type };
    if (body) event[type.toLowerCase()] = body;
    const record = recordIo(this.encoding.encodeEvent(event));
    if (this.pending) {
      this.pending.push(record);
      this.pendingBytes += record.length;
    } else this.write(record);
    return this.queue.check();
  }

  private write(record: Buffer): void {
    if (!this.ended) this.res.write(record);
  }

  /** Ends the stream (Mesos sends ERROR first when it has something to say). */
  disconnect(): boolean {
    return this.end(false);
  }

  /**
   * Ends the stream: what is queued goes out first unless `drop` (it is cut off) or it holds
   * more than a drained queue would; then the connection is destroyed and its buffers freed.
   */
  private end(drop: boolean): boolean {
    if (this.ended) return false;
    this.pending = undefined;
    this.pendingBytes = 0;
    this.ended = true;
    // Before the subscription is answered, its refusal is still to be written.
    if (drop || (this.res.headersSent && this.queue.backedUp)) this.res.destroy();
    else if (this.res.headersSent) this.res.end();
    return true;
  }
}
