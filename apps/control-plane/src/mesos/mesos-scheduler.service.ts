/**
 * Mesos's v1 scheduler HTTP API (`POST /api/v1/scheduler`) on the same master as Arbiter's own
 * protocol: each call is authenticated (Basic principal:token, Bearer token, or anonymous when
 * the operator allows it), decoded (mesos-codec.ts) and handed to the handlers the socket.io
 * gateway uses, so both kinds of framework live under the same rules. SUBSCRIBE answers with
 * the framework's event stream (MesosStream); every other call names that stream in its
 * Mesos-Stream-Id header and is answered 202 Accepted, or a 4xx/5xx JSON error
 * `{ code, message }`. A standby answers 307 with the leader's address, as a Mesos master does.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MesosCall, type MesosCall as MesosCallT, mesosTaskState, PROTOCOL_ERRORS, withoutNulls } from '@arbiter/contracts';
import type { Request, Response } from 'express';
import { BodyReadError, readBody } from '../app/body-reader';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { type Actor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { AuthService } from '../auth/auth.service';
import { PrincipalKind } from '../auth/principal.entity';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CommonErrorCode } from '../errors/errors.codes';
import { FrameworkFailover } from '../framework-lifecycle/framework-failover.handler';
import { FrameworkRemoval } from '../framework-lifecycle/framework-removal.handler';
import { FrameworkSessions } from '../framework-lifecycle/framework-sessions.handler';
import { FRAMEWORK_HEARTBEAT_SECONDS } from '../master/framework-registry';
import { TaskKills } from '../tasks/task-kills.handler';
import { CLOCK, type Clock } from '../kernel/clock';
import { Outbound } from '../kernel/outbound';
import { ClusterState } from '../master/cluster-state';
import { asProtocolError, ProtocolError } from '../kernel/protocol-error';
import { Leadership } from '../leadership/leadership.service';
import { OfferAnswers } from '../offers/offer-answers.handler';
import { Realtime } from '../realtime/realtime';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { acceptOf, declineOf, frameworkUpdateOf, killOf, roleContext, type RoleMap, rolesCallOf, subscriptionOf } from './mesos-codec';
import { answerWith, httpErrorOf, masterInfo, MesosHttpError } from './mesos-http';
import { JSON_ENCODING, type MesosEncoding, mediaType, negotiate } from './mesos-encoding';
import { PROTOBUF_ENCODING } from './mesos-protobuf';
import { MesosStream } from './mesos-stream';
import { messageOf, shutdownOf } from './mesos-executor-codec';
import { Executors } from '../executors/executors.handler';
import { OperationFeedback } from '../operations/operation-feedback.handler';
import { acknowledgeOf, acknowledgeOperationOf, reconcileOperationsOf } from './mesos-operations-codec';

export const MESOS_SCHEDULER_PATH = '/api/v1/scheduler';
/** Where the API is served: its path, and the alias Mesos's master answers too. */
export const MESOS_SCHEDULER_PATHS = [MESOS_SCHEDULER_PATH, `/master${MESOS_SCHEDULER_PATH}`];
const ENCODINGS: MesosEncoding[] = [JSON_ENCODING, PROTOBUF_ENCODING];

/** Offer problems: Mesos drops the tasks (TASK_DROPPED, or TASK_LOST without PARTITION_AWARE) with REASON_INVALID_OFFERS. */
const INVALID_OFFERS = new Set<string>([
  PROTOCOL_ERRORS.UNKNOWN_OFFER,
  PROTOCOL_ERRORS.OFFER_NOT_YOURS,
  PROTOCOL_ERRORS.OFFER_STALE,
  PROTOCOL_ERRORS.OFFERS_FROM_SEVERAL_AGENTS,
]);

@Injectable()
export class MesosScheduler {
  private readonly logger = new Logger('MesosScheduler');
  /** Open streams by their Mesos-Stream-Id. */
  private readonly streams = new Map<string, MesosStream>();

  constructor(
    private readonly leadership: Leadership,
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly state: ClusterState,
    private readonly frameworks: FrameworkSessions,
    private readonly failover: FrameworkFailover,
    private readonly removal: FrameworkRemoval,
    private readonly kills: TaskKills,
    private readonly answers: OfferAnswers,
    private readonly tasks: TaskUpdates,
    private readonly inverseOffers: InverseOffers,
    private readonly realtime: Realtime,
    private readonly outbound: Outbound,
    private readonly executors: Executors,
    private readonly operations: OperationFeedback,
  ) {
    // When this replica stops leading or the process stops, the streams end with the sockets:
    // the frameworks subscribe again (to the leader), and no failover timeout starts meanwhile.
    realtime.addSessions(() => {
      for (const stream of this.streams.values()) stream.disconnect();
      this.streams.clear();
    });
  }

  /** Number of open Mesos event streams (metrics). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** How Mesos's role names map to Arbiter's (`*` is the configured default role). */
  private get roles(): RoleMap {
    return { defaultRole: this.config.mesosDefaultRole };
  }

  async handle(req: Request, res: Response): Promise<void> {
    try {
      await this.call(req, res);
    } catch (err) {
      // A body that could not be read is answered as on every route (errors/errors.filter.ts).
      if (err instanceof BodyReadError) throw err.reason;
      const e = httpErrorOf(err);
      if (!e) {
        this.logger.error({ err }, 'a Mesos scheduler call failed');
        answerWith(res, new MesosHttpError(500, CommonErrorCode.INTERNAL_ERROR, 'the control plane failed on this call; see its log'));
      } else answerWith(res, e);
    }
  }

  private async call(req: Request, res: Response): Promise<void> {
    if (!this.leadership.isLeader) {
      const leader = this.leadership.leaderUrl;
      if (leader && leader !== this.leadership.url) {
        const path = MESOS_SCHEDULER_PATHS.find((p) => p === req.path) ?? MESOS_SCHEDULER_PATH;
        res.setHeader('Location', new URL(path, leader).toString());
        res.status(307).end();
        return;
      }
      throw new MesosHttpError(
        503,
        CommonErrorCode.NO_LEADER,
        'this control plane is a standby and no leader is known yet: try again shortly',
      );
    }
    const contentType = mediaType(req.headers['content-type']);
    const encoding = ENCODINGS.find((e) => e.contentType === contentType);
    if (!encoding)
      throw new MesosHttpError(
        415,
        CommonErrorCode.UNSUPPORTED_MEDIA_TYPE,
        `send the call as ${ENCODINGS.map((e) => e.contentType).join(' or ')} (Content-Type was '${contentType || 'none'}')`,
      );
    // Authenticated from the headers before a byte of the body is read; a caller without
    // credentials (an anonymous framework) may send only the unauthenticated limit.
    const actor = await this.authenticate(req.headers.authorization);
    const authenticated = !actor.anonymous;
    const limit = authenticated ? this.config.bodyLimit : this.config.unauthenticatedBodyLimit;
    await readBody(req, res, limit, { authenticated, raw: true });
    const parsed = MesosCall.safeParse(withoutNulls(encoding.decodeCall(req.body)));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(call)', message: i.message }));
      throw new MesosHttpError(
        400,
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        `invalid Mesos call: ${issues
          .slice(0, 5)
          .map((i) => `${i.path}: ${i.message}`)
          .join('; ')}`,
        {},
        { issues },
      );
    }
    const call = parsed.data;
    if (call.type === 'SUBSCRIBE') {
      const answerIn = negotiate(req.headers.accept, ENCODINGS, encoding);
      if (!answerIn)
        throw new MesosHttpError(
          406,
          CommonErrorCode.NOT_ACCEPTABLE,
          `the event stream is sent as ${ENCODINGS.map((e) => e.contentType).join(' or ')}; the Accept header allows neither`,
        );
      if (req.headers['mesos-stream-id'])
        throw new MesosHttpError(400, PROTOCOL_ERRORS.INVALID_MESSAGE, 'SUBSCRIBE must not carry a Mesos-Stream-Id header');
      await this.subscribe(call, actor, answerIn, req, res);
      return;
    }
    const stream = this.streamOf(req, call, actor);
    await this.dispatch(call, stream, actor);
    // UPDATE_FRAMEWORK is answered 200 once applied, as Mesos does; the other calls 202.
    res.status(call.type === 'UPDATE_FRAMEWORK' ? 200 : 202).end();
  }

  /** Basic (principal and one of its tokens as the secret), Bearer (a token), or none when anonymous frameworks are allowed. */
  private async authenticate(header: string | undefined): Promise<Actor> {
    if (!header) {
      if (!this.config.mesosAllowAnonymous)
        throw new MesosHttpError(
          401,
          AuthErrorCode.AUTH_TOKEN_MISSING,
          "authenticate with 'Authorization: Basic <principal:token>' or 'Bearer <token>' (anonymous frameworks are off: ARBITER_MESOS_ALLOW_ANONYMOUS)",
          { 'WWW-Authenticate': 'Basic realm="arbiter"' },
        );
      return { principalId: null, name: 'anonymous', kind: PrincipalKind.FRAMEWORK, tokenId: null, requestId: null, anonymous: true };
    }
    const actor = await this.auth.authenticate(header, null);
    if (actor.kind !== PrincipalKind.FRAMEWORK && actor.kind !== PrincipalKind.ADMIN)
      throw new MesosHttpError(
        403,
        AuthErrorCode.FORBIDDEN,
        `principal '${actor.name}' (kind ${actor.kind ?? 'system'}) may not call the scheduler API, which admits FRAMEWORK and ADMIN principals`,
      );
    return actor;
  }

  private async subscribe(call: MesosCallT, actor: Actor, encoding: MesosEncoding, req: Request, res: Response): Promise<void> {
    const msg = subscriptionOf(call, this.roles);
    const info = call.subscribe?.framework_info ?? { user: '', name: '' };
    const stream = new MesosStream(
      res,
      encoding,
      actor,
      {
        address: (agentId) => ({ ip: this.state.agents.get(agentId)?.ip }),
        executorIds: (agentId, frameworkId) =>
          [...this.state.executors.onAgent(agentId)].filter((e) => e.frameworkId === frameworkId).map((e) => e.executorId),
        volume: (agentId, role, id) => this.state.volumes.get(agentId, role, id),
      },
      this.outbound,
    );
    // A revoked or expired token, or a disabled principal, ends the stream as a disconnection.
    const forget = this.realtime.watchToken(actor, 'Mesos event stream', () => {
      stream.send('ERROR', { message: 'the credentials of this subscription were revoked or expired' });
      stream.disconnect();
    });
    // A connection that goes before the subscription is answered leaves nothing behind.
    const connection = { gone: false };
    res.on('close', () => {
      connection.gone = true;
      forget();
      this.streams.delete(stream.id);
      stream.disconnect();
      // However it ended (the framework went, or the master ended it: revoked, too slow), its
      // offers go back; unless the master is closing every session (it stops leading).
      if (stream.data.frameworkId !== undefined && this.realtime.sessionsOpen)
        void this.failover.disconnected(stream).catch((err: unknown) => this.logger.error({ err }, 'Mesos framework disconnection'));
    });
    const reply = await this.frameworks.subscribe(stream, msg, actor);
    if (connection.gone) {
      await this.failover.disconnected(stream);
      return;
    }
    this.streams.set(stream.id, stream);
    stream.open(
      { frameworkId: reply.frameworkId, ...roleContext(info), ...this.roles },
      {
        framework_id: { value: reply.frameworkId },
        heartbeat_interval_seconds: reply.heartbeatIntervalSeconds || FRAMEWORK_HEARTBEAT_SECONDS,
        master_info: masterInfo(this.leadership.url, req),
      },
    );
  }

  /** The caller's stream: named by Mesos-Stream-Id, of the framework the call names, opened by the same principal. */
  private streamOf(req: Request, call: MesosCallT, actor: Actor): MesosStream {
    const id = req.headers['mesos-stream-id'];
    if (typeof id !== 'string' || !id)
      throw new MesosHttpError(
        400,
        PROTOCOL_ERRORS.NOT_SUBSCRIBED,
        `${call.type} needs the Mesos-Stream-Id header of the framework's SUBSCRIBE stream`,
      );
    const stream = this.streams.get(id);
    if (!stream || stream.closed)
      throw new MesosHttpError(400, PROTOCOL_ERRORS.NOT_SUBSCRIBED, `no open subscription has stream id '${id}'; subscribe again`);
    if (!call.framework_id || call.framework_id.value !== stream.data.frameworkId)
      throw new MesosHttpError(
        400,
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        `the call's framework_id must be the stream's framework (${String(stream.data.frameworkId)})`,
      );
    const same = stream.actor.anonymous ? actor.anonymous === true : stream.actor.principalId === actor.principalId;
    if (!same)
      throw new MesosHttpError(
        403,
        PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
        `the stream was opened by principal '${stream.actor.name}'; principal '${actor.name}' cannot call on it`,
      );
    return stream;
  }

  private async dispatch(call: MesosCallT, stream: MesosStream, actor: Actor): Promise<void> {
    switch (call.type) {
      case 'TEARDOWN':
        await this.removal.teardown(stream, actor);
        return;
      case 'ACCEPT':
        await this.accept(call, stream);
        return;
      case 'DECLINE':
        await this.answers.decline(stream, declineOf(call));
        return;
      case 'ACCEPT_INVERSE_OFFERS':
      case 'DECLINE_INVERSE_OFFERS': {
        const ids =
          (call.type === 'ACCEPT_INVERSE_OFFERS' ? call.accept_inverse_offers : call.decline_inverse_offers)?.inverse_offer_ids ?? [];
        for (const { value } of ids)
          await this.inverseOffers.answer(stream, { inverseOfferId: value, accept: call.type === 'ACCEPT_INVERSE_OFFERS' });
        return;
      }
      case 'REVIVE':
        await this.frameworks.revive(stream, rolesCallOf(call, this.roles));
        return;
      case 'SUPPRESS':
        await this.frameworks.suppress(stream, rolesCallOf(call, this.roles));
        return;
      case 'KILL':
        await this.kills.kill(stream, killOf(call));
        return;
      case 'ACKNOWLEDGE':
        return this.tasks.acknowledge(stream, acknowledgeOf(call));
      case 'ACKNOWLEDGE_OPERATION_STATUS':
        return this.operations.acknowledge(stream, acknowledgeOperationOf(call));
      case 'RECONCILE_OPERATIONS':
        return this.operations.reconcile(stream, reconcileOperationsOf(call));
      case 'RECONCILE':
        await this.tasks.reconcile(stream, { tasks: (call.reconcile?.tasks ?? []).map((t) => ({ taskId: t.task_id.value })) });
        return;
      case 'UPDATE_FRAMEWORK': {
        await this.frameworks.update(stream, frameworkUpdateOf(call, this.roles), actor);
        const info = call.update_framework?.framework_info;
        if (stream.context && info) Object.assign(stream.context, roleContext(info));
        return;
      }
      case 'REQUEST':
        // Mesos's allocator ignores requests too: frameworks state their needs by what they accept.
        return;
      case 'SHUTDOWN':
        await this.droppedIfUnknown(this.executors.shutdown(stream, shutdownOf(call)), call.type);
        return;
      case 'MESSAGE':
        await this.droppedIfUnknown(this.executors.toExecutor(stream, messageOf(call)), call.type);
        return;
      default:
        throw new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, `${call.type} is not supported by Arbiter (see docs/mesos-compat.md)`);
    }
  }

  /** SHUTDOWN and MESSAGE of an executor the framework does not run there are dropped (202), as a Mesos master drops them. */
  private async droppedIfUnknown(work: Promise<void>, type: string): Promise<void> {
    try {
      await work;
    } catch (err) {
      if (asProtocolError(err)?.code !== PROTOCOL_ERRORS.UNKNOWN_EXECUTOR) throw err;
      this.logger.debug({ err, type }, 'dropped a call for an executor the framework does not run there');
    }
  }

  /**
   * ACCEPT, as a Mesos master answers it: 202 once the call is understood. When the offers or the
   * tasks cannot be used, the tasks are reported back on the stream (TASK_DROPPED or TASK_LOST for
   * bad offers, TASK_ERROR for bad tasks) and what the offers held goes back to the allocator.
   */
  private async accept(call: MesosCallT, stream: MesosStream): Promise<void> {
    const { accept, launched } = acceptOf(call);
    try {
      const agents = new Set(accept.offerIds.map((id) => this.state.offers.get(id)?.agentId).filter((a) => a !== undefined));
      const wrong = launched.map((t) => t.agentId).find((a) => agents.size === 1 && !agents.has(a));
      if (wrong !== undefined)
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `a task names agent '${wrong}', not the agent of the offers`);
      await this.answers.accept(stream, accept);
    } catch (err) {
      const p = asProtocolError(err);
      if (!p || p.code === PROTOCOL_ERRORS.DATABASE_UNAVAILABLE || p.code === PROTOCOL_ERRORS.NOT_SUBSCRIBED) throw err;
      const fw = this.state.frameworks.get(String(stream.data.frameworkId));
      const invalidOffers = INVALID_OFFERS.has(p.code);
      const state = mesosTaskState(invalidOffers ? (fw?.capabilities.includes('PARTITION_AWARE') ? 'DROPPED' : 'LOST') : 'ERROR');
      const reason = invalidOffers
        ? 'REASON_INVALID_OFFERS'
        : p.code === PROTOCOL_ERRORS.FORBIDDEN
          ? 'REASON_TASK_UNAUTHORIZED'
          : 'REASON_TASK_INVALID';
      const timestamp = this.clock.now() / 1000;
      for (const t of launched)
        stream.send('UPDATE', {
          status: {
            task_id: { value: t.taskId },
            state,
            message: p.message,
            source: 'SOURCE_MASTER',
            reason,
            agent_id: { value: t.agentId },
            timestamp,
          },
        });
      // The framework's usable offers among them go back, as Mesos recovers an invalid accept's offers.
      const mine = accept.offerIds.filter((id) => this.state.offers.get(id)?.frameworkId === fw?.id);
      if (mine.length)
        await this.answers
          .decline(stream, { offerIds: mine, ...(accept.refuseSeconds !== undefined ? { refuseSeconds: accept.refuseSeconds } : {}) })
          .catch((e: unknown) => this.logger.warn({ err: e }, 'returning the offers of a refused accept failed; the offer timeout will'));
    }
  }
}
