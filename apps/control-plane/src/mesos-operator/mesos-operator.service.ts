/**
 * Mesos's v1 operator API (`POST /api/v1`, and `/master/api/v1` as a Mesos master answers it):
 * each call is authenticated as the REST API authenticates (Bearer token, or Basic
 * principal:token as Mesos tools send it), its kind must have the permission of the equivalent
 * REST operation (reads: `read`; writes: `operate`; SET_LOGGING_LEVEL: `admin`), decoded
 * (JSON or protobuf, by Content-Type) and answered in the encoding Accept asks for. Reads are
 * answered by OperatorReads, writes by OperatorWrites (the REST services, so their ACLs and audit
 * entries), SUBSCRIBE by OperatorSubscriptions. A standby answers 307 with the leader's address
 * (except for the calls about itself: health, flags, version, logging level); refusals are
 * `{ code, message }` with the status the REST API gives the same code.
 */
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import type { Request, Response } from 'express';
import { BodyReadError, readBody } from '../app/body-reader';
import { type Actor, anonymousReader } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { AuthService } from '../auth/auth.service';
import { kindMay } from '../auth/permissions';
import { RefusalLog } from '../auth/refusal-log';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CommonErrorCode } from '../errors/errors.codes';
import { ProtocolError } from '../kernel/protocol-error';
import { Leadership } from '../leadership/leadership.service';
import { answerWith, httpErrorOf, MesosHttpError } from '../mesos/mesos-http';
import { callType, isRead, isWrite, LOCAL_CALLS, permissionOf } from './operator-calls';
import { encodingOf, negotiateAnswer, OPERATOR_ENCODINGS, type OperatorEncoding } from './operator-encoding';
import { EncodedAnswers } from './operator-answers';
import { OperatorReads } from './operator-reads';
import { OperatorSubscriptions } from './operator-subscriptions';
import { OperatorWrites } from './operator-writes';

export const MESOS_OPERATOR_PATH = '/api/v1';
/** Answers from this size are gzipped for callers that accept it (libprocess's GZIP_MINIMUM_BODY_LENGTH, as Mesos's master). */
const GZIP_FROM = 1024;
const gzipAsync = promisify(zlib.gzip);

/** Whether the Accept-Encoding header allows gzip (by name or `*`, with a non-zero weight). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q) > 0);
  });
}
/** Where the API is served: its path, and the alias Mesos's master answers too. */
export const MESOS_OPERATOR_PATHS = [MESOS_OPERATOR_PATH, `/master${MESOS_OPERATOR_PATH}`];

const TYPES = OPERATOR_ENCODINGS.map((e) => e.contentType).join(' or ');

@Injectable()
export class MesosOperator {
  private readonly logger = new Logger('MesosOperator');
  /** Reads being computed, and their encodings, by caller and call (`shared`). */
  private readonly reading = new Map<string, Promise<Record<string, unknown>>>();
  private readonly encoding = new Map<string, Promise<Buffer>>();
  /** The last bytes of each whole-cluster answer, while it stays the same. */
  private readonly answers = new EncodedAnswers();

  constructor(
    private readonly leadership: Leadership,
    private readonly auth: AuthService,
    private readonly refusals: RefusalLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reads: OperatorReads,
    private readonly writes: OperatorWrites,
    private readonly subscriptions: OperatorSubscriptions,
  ) {}

  async handle(req: Request, res: Response): Promise<void> {
    try {
      await this.call(req, res);
    } catch (err) {
      if (err instanceof BodyReadError) throw err.reason;
      const e = httpErrorOf(err);
      if (!e) {
        this.logger.error({ err }, 'a Mesos operator call failed');
        answerWith(res, new MesosHttpError(500, CommonErrorCode.INTERNAL_ERROR, 'the control plane failed on this call; see its log'));
      } else answerWith(res, e);
    }
  }

  private async call(req: Request, res: Response): Promise<void> {
    const encoding = encodingOf(req.headers['content-type']);
    if (!encoding)
      throw new MesosHttpError(
        415,
        CommonErrorCode.UNSUPPORTED_MEDIA_TYPE,
        `send the call as ${TYPES} (Content-Type was '${req.headers['content-type'] ?? 'none'}')`,
      );
    // Authenticated from the headers before a byte of the body is read.
    const header = req.headers.authorization;
    const rid: unknown = (req as { id?: unknown }).id;
    const requestId = typeof rid === 'string' ? rid : null;
    if (!header && !this.config.mesosReadonlyAnonymous) throw this.missingCredentials();
    const actor = header ? await this.auth.authenticate(header, requestId) : anonymousReader(requestId);
    const limit = actor.anonymous ? this.config.unauthenticatedBodyLimit : this.config.bodyLimit;
    await readBody(req, res, limit, { authenticated: !actor.anonymous, raw: true });
    const call = encoding.decodeCall(req.body);
    const type = callType(call);
    if (actor.anonymous && !isRead(type)) throw this.missingCredentials(type);
    await this.permit(actor, type);
    if (!this.leadership.isLeader && !LOCAL_CALLS.has(type)) {
      this.redirect(req, res);
      return;
    }
    const answerIn = negotiateAnswer(req.headers.accept, encoding);
    if (!answerIn)
      throw new MesosHttpError(406, CommonErrorCode.NOT_ACCEPTABLE, `the answer is sent as ${TYPES}; the Accept header allows neither`);
    if (type === 'SUBSCRIBE') {
      await this.subscriptions.subscribe(actor, answerIn, res);
      return;
    }
    if (isWrite(type)) {
      const status = await this.writes.apply(type, call, actor);
      res.status(status).end();
      return;
    }
    if (!isRead(type)) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `unknown call type '${type}'`);
    const gzip = acceptsGzip(req.headers['accept-encoding']);
    const key = `${actor.principalId ?? 'anonymous'}\u0000${type}`;
    const body = await this.shared(key, type, answerIn, gzip, () => this.reads.answer(type, actor, req));
    res.status(200);
    res.setHeader('Content-Type', answerIn.contentType);
    res.setHeader('Vary', 'Accept-Encoding');
    if (body.gzipped) res.setHeader('Content-Encoding', 'gzip');
    res.end(body.bytes);
  }

  /**
   * Concurrent identical reads of one caller (the same principal, so view ACLs cannot leak) share
   * one computation, and one encoding per media type, as the REST API's coalesced routes and
   * Mesos's master's batched state reads do: ten monitors polling GET_STATE read the cluster
   * once. The answer is not kept once it is out; its bytes are, while the next answer is the
   * same (EncodedAnswers).
   */
  private shared(
    key: string,
    type: string,
    encoding: OperatorEncoding,
    gzip: boolean,
    read: () => Promise<Record<string, unknown>>,
  ): Promise<{ bytes: Buffer; gzipped: boolean }> {
    const once = <T>(map: Map<string, Promise<T>>, k: string, make: () => Promise<T>): Promise<T> => {
      let p = map.get(k);
      if (!p) {
        p = make().finally(() => map.delete(k));
        map.set(k, p);
      }
      return p;
    };
    const response = once(this.reading, key, read);
    const encodedKey = `${key}\u0000${encoding.contentType}`;
    const slot = `${type}\u0000${encoding.contentType}`;
    const encoded = once(this.encoding, encodedKey, () =>
      response.then((r) => this.answers.bytes(slot, r, () => Promise.resolve(encoding.encodeResponse(r)))),
    );
    // Large answers gzipped once for every caller that accepts it (off the event loop: zlib's threads).
    return encoded.then((bytes) =>
      gzip && bytes.length >= GZIP_FROM
        ? once(this.encoding, `${encodedKey}\u0000gzip`, () =>
            response.then((r) => this.answers.bytes(`${slot}\u0000gzip`, r, () => gzipAsync(bytes, { level: 1 }))),
          ).then((z) => ({ bytes: z, gzipped: true }))
        : { bytes, gzipped: false },
    );
  }

  private missingCredentials(type?: string): MesosHttpError {
    return new MesosHttpError(
      401,
      AuthErrorCode.AUTH_TOKEN_MISSING,
      type
        ? `${type} changes the cluster: authenticate with 'Authorization: Bearer <token>' or 'Basic <principal:token>' (only read calls may come without credentials)`
        : "authenticate with 'Authorization: Bearer <token>' or 'Basic <principal:token>' (ARBITER_MESOS_READONLY_ANONYMOUS lets read calls come without)",
      { 'WWW-Authenticate': 'Basic realm="arbiter"' },
    );
  }

  /** The caller's kind must have the call's permission; a refusal goes to the access log, as the REST guard's do. */
  private async permit(actor: Actor, type: string): Promise<void> {
    const permission = permissionOf(type);
    if (actor.kind && kindMay(actor.kind, permission)) return;
    await this.refusals.denied(actor, { what: `Mesos operator call ${type}`, reason: `needs '${permission}'` });
    throw new MesosHttpError(
      403,
      AuthErrorCode.FORBIDDEN,
      `principal '${actor.name}' (${actor.kind ?? 'system'}) may not make the ${type} call: it needs the '${permission}' permission`,
    );
  }

  /** 307 to the same path on the leader, as a Mesos master's standby answers; 503 while none is known. */
  private redirect(req: Request, res: Response): void {
    const leader = this.leadership.leaderUrl;
    if (!leader || leader === this.leadership.url)
      throw new MesosHttpError(
        503,
        CommonErrorCode.NO_LEADER,
        'this control plane is a standby and no leader is known yet: try again shortly',
      );
    const path = MESOS_OPERATOR_PATHS.find((p) => p === req.path) ?? MESOS_OPERATOR_PATH;
    res.setHeader('Location', new URL(path, leader).toString());
    res.status(307).end();
  }
}
