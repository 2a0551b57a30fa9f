/**
 * SUBSCRIBE of Mesos's operator API: a RecordIO stream (`<length>\n<record>`) that opens with
 * SUBSCRIBED holding the whole state (GET_STATE, under the caller's view ACLs), then follows the
 * master's event stream (the one /events serves the dashboard: realtime/operator-stream.ts) as
 * TASK_ADDED, TASK_UPDATED, AGENT_ADDED, AGENT_REMOVED, FRAMEWORK_ADDED, FRAMEWORK_UPDATED and
 * FRAMEWORK_REMOVED, each filtered by the same view, and HEARTBEAT every 15 seconds. AGENT_ADDED
 * and the FRAMEWORK_* events carry the whole agent or framework, as GET_AGENTS and
 * GET_FRAMEWORKS show it (Mesos's master does the same), from what the events say. Events that
 * happen while the state is read wait and follow it. A subscriber that stops reading is
 * cut off once what waits for it passes a bound; the streams end when this replica stops
 * leading (the client subscribes again, to the new leader), or when the caller's token is
 * revoked.
 */
import { Injectable, Logger } from '@nestjs/common';
import { mesosTaskState, type OperatorEvents } from '@arbiter/contracts';
import type { Response } from 'express';
import { AgentStatus } from '../agents/agent.entity';
import type { Actor } from '../auth/auth.actor';
import { OperatorStream, visible } from '../realtime/operator-stream';
import { Realtime } from '../realtime/realtime';
import { mesosReason } from '../mesos/mesos-events';
import type { OperatorEncoding } from './operator-encoding';
import { OperatorReads } from './operator-reads';
import { frameworkInfo, operatorAgent, resources, timeInfo } from './operator-views';

/** Seconds between HEARTBEAT events (Mesos's master sends one every 15 s). */
export const OPERATOR_HEARTBEAT_SECONDS = 15;
/** Bytes that may wait for a subscriber before it is cut off. */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

type Obj = Record<string, unknown>;
type Payload<E extends keyof OperatorEvents> = Parameters<OperatorEvents[E]>[0];

const id = (value: string) => ({ value });

class Subscriber {
  /** Records that wait for SUBSCRIBED; undefined once it has gone out. */
  private waiting: Buffer[] | undefined = [];
  /** Frameworks the subscriber knows, by id: their FrameworkInfo, which FRAMEWORK_REMOVED carries. */
  readonly frameworks = new Map<string, Obj>();
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

  constructor(
    private readonly stream: OperatorStream,
    private readonly realtime: Realtime,
    private readonly reads: OperatorReads,
  ) {
    stream.listen((event, payload) => {
      if (!this.subscribers.size) return;
      for (const s of this.subscribers) this.deliver(s, event, payload);
    });
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
    const known = (state.get_frameworks as Obj).frameworks as Array<{ framework_info: Obj & { id: { value: string } } }>;
    for (const f of known) s.frameworks.set(f.framework_info.id.value, f.framework_info);
    s.open({ get_state: state, heartbeat_interval_seconds: OPERATOR_HEARTBEAT_SECONDS });
  }

  private deliver<E extends keyof OperatorEvents>(s: Subscriber, event: E, payload: Payload<E>): void {
    if (s.ended) return;
    const view = this.stream.view(s.actor);
    if (view && !visible(event, payload, view)) return;
    try {
      this.translate(s, event, payload);
    } catch (err) {
      this.logger.error({ err, event }, 'an event could not be sent on a SUBSCRIBE stream');
    }
  }

  private translate<E extends keyof OperatorEvents>(s: Subscriber, event: E, payload: Payload<E>): void {
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
        // The whole agent, as GET_AGENTS shows it; a new agent runs nothing yet.
        const a = payload as Payload<'agent.added'>;
        const agent = operatorAgent({
          ...a,
          id: a.agentId,
          status: AgentStatus.REACHABLE,
          drainState: null,
          drainConfig: null,
          firstSeenAt: a.registeredAt,
          usage: { used: {}, offered: {} },
        });
        s.send('AGENT_ADDED', 'agent_added', { agent });
        return;
      }
      case 'agent.removed':
        s.send('AGENT_REMOVED', 'agent_removed', { agent_id: id((payload as Payload<'agent.removed'>).agentId) });
        return;
      case 'framework.added': {
        // The whole framework, as GET_FRAMEWORKS shows it: it has just subscribed.
        const f = payload as Payload<'framework.added'>;
        const seen = s.frameworks.has(f.frameworkId);
        const info = frameworkInfo({ ...f, id: f.frameworkId });
        s.frameworks.set(f.frameworkId, info);
        const framework = {
          framework_info: info,
          active: true,
          connected: true,
          recovered: false,
          registered_time: timeInfo(f.registeredAt),
          allocated_resources: [],
          offered_resources: [],
        };
        if (seen) s.send('FRAMEWORK_UPDATED', 'framework_updated', { framework });
        else s.send('FRAMEWORK_ADDED', 'framework_added', { framework });
        return;
      }
      case 'framework.removed': {
        const f = payload as Payload<'framework.removed'>;
        const info = s.frameworks.get(f.frameworkId) ?? { user: '', name: '', id: id(f.frameworkId) };
        s.frameworks.delete(f.frameworkId);
        s.send('FRAMEWORK_REMOVED', 'framework_removed', { framework_info: info });
        return;
      }
      default:
        return;
    }
  }
}
