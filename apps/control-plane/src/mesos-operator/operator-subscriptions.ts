/**
 * SUBSCRIBE of Mesos's operator API: a RecordIO stream (`<length>\n<record>`) that opens with
 * SUBSCRIBED holding the whole state (GET_STATE, under the caller's view ACLs), then follows the
 * master's event stream (the one /events serves the dashboard: realtime/operator-stream.ts) as
 * TASK_ADDED, TASK_UPDATED, AGENT_ADDED, AGENT_REMOVED, FRAMEWORK_ADDED, FRAMEWORK_UPDATED and
 * FRAMEWORK_REMOVED, each filtered by the same view, and HEARTBEAT every 15 seconds. AGENT_ADDED
 * and the FRAMEWORK_* events carry the whole agent or framework, as GET_AGENTS and
 * GET_FRAMEWORKS show it (Mesos's master does the same). Events that happen while the state is
 * read wait and follow it. A subscriber that stops reading is
 * cut off once what waits for it passes a bound; the streams end when this replica stops
 * leading (the client subscribes again, to the new leader), or when the caller's token is
 * revoked.
 */
import { Injectable, Logger } from '@nestjs/common';
import { mesosTaskState, type OperatorEvents } from '@arbiter/contracts';
import type { Response } from 'express';
import type { Actor } from '../auth/auth.actor';
import { OperatorStream, visible } from '../realtime/operator-stream';
import { Realtime } from '../realtime/realtime';
import { mesosReason } from '../mesos/mesos-events';
import type { OperatorEncoding } from './operator-encoding';
import { OperatorReads } from './operator-reads';
import { resources } from './operator-views';

/** Seconds between HEARTBEAT events (Mesos's master sends one every 15 s). */
export const OPERATOR_HEARTBEAT_SECONDS = 15;
/** Bytes that may wait for a subscriber before it is cut off. */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

type Obj = Record<string, unknown>;
type Payload<E extends keyof OperatorEvents> = Parameters<OperatorEvents[E]>[0];
/** The agent or framework an event carries, as the read calls show it; undefined when not read. */
type Detail = Obj | undefined;

const id = (value: string) => ({ value });

class Subscriber {
  /** Records that wait for SUBSCRIBED; undefined once it has gone out. */
  private waiting: Buffer[] | undefined = [];
  /** Frameworks the subscriber knows, by id (their names, for FRAMEWORK_REMOVED). */
  readonly frameworks = new Map<string, string>();
  ended = false;

  constructor(
    readonly actor: Actor,
    private readonly res: Response,
    private readonly encoding: OperatorEncoding,
  ) {}

  send(type: string, field: string | undefined, message?: Obj): void {
    if (this.ended) return;
    const record = this.encoding.encodeEvent(field ? { type, [field]: message } : { type });
    if (this.waiting) this.waiting.push(record);
    else this.write(record);
  }

  /** SUBSCRIBED, then what waited. */
  open(subscribed: Obj): void {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    this.send('SUBSCRIBED', 'subscribed', subscribed);
    for (const record of waiting) this.write(record);
  }

  private write(record: Buffer): void {
    if (this.res.writableLength > MAX_QUEUED_BYTES) {
      this.end();
      return;
    }
    this.res.write(record);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.end();
  }
}

@Injectable()
export class OperatorSubscriptions {
  private readonly logger = new Logger('MesosOperatorSubscribe');
  private readonly subscribers = new Set<Subscriber>();
  /** Events waiting for what an earlier one reads, and the end of that queue. */
  private waiting = 0;
  private tail: Promise<void> | undefined;

  constructor(
    private readonly stream: OperatorStream,
    private readonly realtime: Realtime,
    private readonly reads: OperatorReads,
  ) {
    stream.listen((event, payload) => this.publish(event, payload));
    // When this replica stops leading, or the process stops, the streams end.
    realtime.addSessions(() => {
      for (const s of this.subscribers) s.end();
      this.subscribers.clear();
    });
  }

  /** Number of open operator event streams. */
  get open(): number {
    return this.subscribers.size;
  }

  async subscribe(actor: Actor, encoding: OperatorEncoding, res: Response): Promise<void> {
    const s = new Subscriber(actor, res, encoding);
    const forget = this.realtime.watchToken(actor, 'Mesos operator event stream', () => s.end());
    const heartbeat = setInterval(() => s.send('HEARTBEAT', undefined), OPERATOR_HEARTBEAT_SECONDS * 1000);
    heartbeat.unref();
    res.on('close', () => {
      clearInterval(heartbeat);
      forget();
      this.subscribers.delete(s);
      s.ended = true;
    });
    this.subscribers.add(s);
    res.status(200);
    res.setHeader('Content-Type', encoding.contentType);
    res.setHeader('Cache-Control', 'no-cache');
    res.flushHeaders();
    let state: Obj;
    try {
      state = await this.reads.state(actor);
    } catch (err) {
      this.logger.error({ err }, 'reading the state for a SUBSCRIBE stream failed');
      s.end();
      return;
    }
    const known = (state.get_frameworks as Obj).frameworks as Array<{ framework_info: { id: { value: string }; name: string } }>;
    for (const f of known) s.frameworks.set(f.framework_info.id.value, f.framework_info.name);
    s.open({ get_state: state, heartbeat_interval_seconds: OPERATOR_HEARTBEAT_SECONDS });
  }

  /**
   * Each event to every subscriber, in the order they happened. AGENT_ADDED and FRAMEWORK_*
   * carry the agent or framework as GET_AGENTS and GET_FRAMEWORKS show it, as Mesos's do: it is
   * read once for all subscribers, and the events after it wait for it (only then).
   */
  private publish<E extends keyof OperatorEvents>(event: E, payload: Payload<E>): void {
    if (!this.subscribers.size) return;
    const detail = this.detail(event, payload);
    if (!detail && !this.waiting) {
      this.broadcast(event, payload, undefined);
      return;
    }
    this.waiting++;
    const read = (detail ?? Promise.resolve(undefined)).catch((err: unknown) => {
      this.logger.warn({ err, event }, 'an event goes out on the SUBSCRIBE streams without the details that could not be read');
      return undefined;
    });
    this.tail = (this.tail ?? Promise.resolve())
      .then(() => read)
      .then((d) => this.broadcast(event, payload, d))
      .finally(() => {
        if (--this.waiting === 0) this.tail = undefined;
      });
  }

  private detail<E extends keyof OperatorEvents>(event: E, payload: Payload<E>): Promise<Detail> | undefined {
    switch (event) {
      case 'agent.added':
        return this.reads.agent((payload as Payload<'agent.added'>).agentId);
      case 'framework.added':
      case 'framework.removed':
        return this.reads.framework((payload as Payload<'framework.added' | 'framework.removed'>).frameworkId);
      default:
        return undefined;
    }
  }

  private broadcast<E extends keyof OperatorEvents>(event: E, payload: Payload<E>, detail: Detail): void {
    for (const s of this.subscribers) this.deliver(s, event, payload, detail);
  }

  private deliver<E extends keyof OperatorEvents>(s: Subscriber, event: E, payload: Payload<E>, detail: Detail): void {
    if (s.ended) return;
    const view = this.stream.view(s.actor);
    if (view && !visible(event, payload, view)) return;
    try {
      this.translate(s, event, payload, detail);
    } catch (err) {
      this.logger.error({ err, event }, 'an event could not be sent on a SUBSCRIBE stream');
    }
  }

  private translate<E extends keyof OperatorEvents>(s: Subscriber, event: E, payload: Payload<E>, detail: Detail): void {
    switch (event) {
      case 'task.added': {
        const t = payload as Payload<'task.added'>;
        s.send('TASK_ADDED', 'task_added', {
          task: {
            name: t.name,
            task_id: id(t.taskId),
            framework_id: id(t.frameworkId),
            agent_id: id(t.agentId),
            state: mesosTaskState(t.state),
            resources: resources(t.resources, t.role),
            statuses: [],
          },
        });
        return;
      }
      case 'task.updated': {
        const t = payload as Payload<'task.updated'>;
        const state = mesosTaskState(t.state);
        const reason = mesosReason(t.reason);
        s.send('TASK_UPDATED', 'task_updated', {
          framework_id: id(t.frameworkId),
          status: {
            task_id: id(t.taskId),
            state,
            agent_id: id(t.agentId),
            timestamp: Date.now() / 1000,
            ...(reason ? { reason } : {}),
          },
          state,
        });
        return;
      }
      case 'agent.added': {
        const a = payload as Payload<'agent.added'>;
        const total = resources(a.resources);
        const agent = detail ?? {
          agent_info: { hostname: a.hostname, id: id(a.agentId), resources: total },
          active: true,
          version: '',
          total_resources: total,
        };
        s.send('AGENT_ADDED', 'agent_added', { agent });
        return;
      }
      case 'agent.removed':
        s.send('AGENT_REMOVED', 'agent_removed', { agent_id: id((payload as Payload<'agent.removed'>).agentId) });
        return;
      case 'framework.added': {
        const f = payload as Payload<'framework.added'>;
        const seen = s.frameworks.has(f.frameworkId);
        s.frameworks.set(f.frameworkId, f.name);
        // It has just subscribed: active and connected, whatever the read saw of its connection.
        const framework = {
          ...(detail ?? { framework_info: { user: '', name: f.name, id: id(f.frameworkId), roles: f.roles }, recovered: false }),
          active: true,
          connected: true,
        };
        if (seen) s.send('FRAMEWORK_UPDATED', 'framework_updated', { framework });
        else s.send('FRAMEWORK_ADDED', 'framework_added', { framework });
        return;
      }
      case 'framework.removed': {
        const f = payload as Payload<'framework.removed'>;
        const name = s.frameworks.get(f.frameworkId) ?? '';
        s.frameworks.delete(f.frameworkId);
        s.send('FRAMEWORK_REMOVED', 'framework_removed', {
          framework_info: detail?.framework_info ?? { user: '', name, id: id(f.frameworkId) },
        });
        return;
      }
      default:
        return;
    }
  }
}
