/**
 * The socket.io server, attached to the control plane's HTTP server. Every namespace, the root
 * one included, needs a token in the handshake (`auth: { token }`), checked like the REST API's
 * bearer tokens, and a principal of a kind the namespace admits. Until a connection has
 * authenticated, its messages may be no larger than a handshake (PRE_AUTH_MAX_BYTES); the large
 * limit applies only once it has. A revoked or expired token's sockets are closed at once (and
 * its Mesos event streams ended: `watchToken`).
 */
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type Namespace, Server } from 'socket.io';
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import type { Actor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { AuthService, type Revocation } from '../auth/auth.service';
import type { PrincipalKind } from '../auth/principal.entity';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { toArbiterException } from '../errors/errors.filter';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { Leadership } from '../leadership/leadership.service';
import { Outbound, type OutboundQueue, principalKey } from '../kernel/outbound';

export interface AuthedSocketData {
  actor: Actor;
  /** What is queued for the connection's reader (SessionData.outbound). */
  outbound?: OutboundQueue;
}

/** Largest message before a connection has authenticated: a handshake with a token fits easily. */
export const PRE_AUTH_MAX_BYTES = 16 * 1024;
/** Largest message once authenticated: big offer answers, registrations with many tasks. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Longest a setTimeout may wait; later expiries are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type AnySocket = Namespace['sockets'] extends Map<string, infer S> ? S : never;

/** What raiseMessageLimit needs of an engine.io connection's transport (not part of its typed API). */
interface EngineTransport {
  name: string;
  maxHttpBufferSize?: number;
  socket?: { _receiver?: { _maxPayload: number } };
}

@Injectable()
export class Realtime implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private server?: Server;
  private open = true;
  /** Every engine.io connection (under any namespace, authenticated or not). */
  private readonly connections = new Set<EngineConnection>();
  /** Namespaces only the leader serves. */
  private readonly leaderOnly = new Set<Namespace>();
  /** Open sessions (sockets, Mesos event streams) by the token they authenticated with. */
  private readonly byToken = new Map<string, Set<TokenSession>>();
  /** The queue of each engine.io connection (kernel/outbound.ts). */
  private readonly queues = new WeakMap<object, OutboundQueue>();
  /** Closers of other protocols' sessions (Mesos's event streams): they go with the sockets. */
  private readonly otherSessions = new Set<() => void>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: AuthService,
    private readonly leadership: Leadership,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbound: Outbound,
  ) {
    auth.onRevoked((r) => this.closeRevoked(r));
  }

  get io(): Server {
    if (!this.server) {
      const http = this.adapterHost.httpAdapter.getHttpServer() as HttpServer;
      this.server = new Server(http, {
        path: '/socket.io',
        serveClient: false,
        // Raised per connection once it has authenticated (see raiseMessageLimit).
        maxHttpBufferSize: PRE_AUTH_MAX_BYTES,
        // A connection that joins no namespace within this time is closed.
        connectTimeout: 10_000,
        // A client hearing no ping for interval + timeout takes the control plane for gone (paused,
        // cut off) and moves to another replica; a silent client is let go as soon.
        pingInterval: this.config.pingInterval * 1000,
        pingTimeout: this.config.pingTimeout * 1000,
        cors: { origin: true, credentials: true },
      });
      this.server.engine.on('connection', coalesceWrites);
      this.server.engine.on('connection', (conn: EngineConnection) => {
        this.connections.add(conn);
        conn.once('close', () => this.connections.delete(conn));
      });
      this.server.engine.on('connection', (conn: BoundedConnection) => this.bound(conn));
      // The root namespace serves nothing: refuse every connection to it.
      this.server.of('/').use((_socket, next) => {
        const e = new Error('connect to /agents, /frameworks or /events') as Error & { data?: unknown };
        e.data = { code: AuthErrorCode.FORBIDDEN };
        next(e);
      });
    }
    return this.server;
  }

  /**
   * A namespace whose sockets carry the authenticated actor in `socket.data.actor`; only
   * principals of the given kinds may connect.
   */
  namespace(name: string, kinds: readonly PrincipalKind[], options: { leaderOnly?: boolean } = {}): Namespace {
    const ns = this.io.of(name);
    if (options.leaderOnly) {
      this.leaderOnly.add(ns);
      // A standby refuses sessions and names the leader (as a Mesos master answers 307).
      ns.use((_socket, next) => {
        if (this.leadership.isLeader) {
          next();
          return;
        }
        const leader = this.leadership.leaderUrl;
        const e = new Error(
          leader && leader !== this.leadership.url
            ? `this control plane is a standby: connect to the leader at ${leader}`
            : 'this control plane is a standby and no leader is known yet: try again shortly',
        ) as Error & { data?: unknown };
        e.data = { code: PROTOCOL_ERRORS.NOT_LEADER, leader: leader !== this.leadership.url ? leader : null };
        next(e);
      });
    }
    ns.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      this.auth
        .authenticate(typeof token === 'string' ? `Bearer ${token}` : undefined, null)
        .then((actor) => {
          if (!actor.kind || !kinds.includes(actor.kind))
            throw new ArbiterException(
              AuthErrorCode.FORBIDDEN,
              `principal '${actor.name}' (kind ${actor.kind ?? 'system'}) may not connect to ${name}, which admits ${kinds.join(' and ')} principals`,
            );
          (socket.data as AuthedSocketData).actor = actor;
          const queue = this.queues.get(socket.conn);
          queue?.claim(principalKey(actor));
          (socket.data as AuthedSocketData).outbound = queue;
          this.track(socket, actor);
          raiseMessageLimit(socket.conn);
          next();
        })
        .catch((err: unknown) => {
          const known = toArbiterException(err);
          // A failure that is not the token's (a query that timed out, say) must not read as a
          // refused token: clients give up on those for good, and retry anything else.
          const e = new Error(known?.message ?? 'authentication could not be completed; retry shortly') as Error & { data?: unknown };
          e.data = { code: known?.code ?? CommonErrorCode.INTERNAL_ERROR };
          if (!known) this.logger.warn({ err }, 'socket authentication failed');
          next(e);
        });
    });
    return ns;
  }

  /**
   * False while the master closes the sessions itself (it stopped leading, or the process
   * stops): their disconnections are then none of the agents' or frameworks' doing, and start
   * no failover timeout.
   */
  get sessionsOpen(): boolean {
    return this.open;
  }

  /** The master leads: sessions are its own again. */
  openSessions(): void {
    this.open = true;
  }

  /** Sessions of another protocol, closed whenever the socket sessions are. */
  addSessions(close: () => void): void {
    this.otherSessions.add(close);
  }

  /** Closes every agent and framework session (this replica stopped leading): they reconnect to the leader. */
  closeSessions(): void {
    this.open = false;
    for (const close of this.otherSessions) close();
    for (const ns of this.leaderOnly) ns.disconnectSockets(true);
    // Connections still authenticating (their handshake may wait on the lost database) go too.
    for (const conn of this.connections) conn.close();
  }

  /**
   * Bounds what waits for a connection's reader (kernel/outbound.ts): the packets engine.io
   * holds for it, and what its websocket has not written yet. A connection past a bound is
   * cut off: its websocket destroyed, its packets dropped.
   */
  private bound(conn: BoundedConnection): void {
    let packets = 0;
    const size = (p: EnginePacket) => (typeof p.data === 'string' ? p.data.length : (p.data?.byteLength ?? 0));
    const queue = this.outbound.register(`socket.io:${conn.id}`, {
      queuedBytes: () => packets + (conn.transport.name === 'websocket' ? (conn.transport.socket?.bufferedAmount ?? 0) : 0),
      cut: () => {
        if (conn.transport.name === 'websocket') conn.transport.socket?.terminate?.();
        conn.close(true);
      },
    });
    this.queues.set(conn, queue);
    const progressed = () => queue.progressed();
    const watch = (t: BoundedConnection['transport']) => t.on?.('drain', progressed);
    conn.on('packetCreate', (p: EnginePacket) => {
      packets += size(p);
      queue.check();
    });
    conn.on('flush', (buffer: EnginePacket[]) => {
      for (const p of buffer) packets -= size(p);
    });
    conn.on('drain', progressed);
    conn.on('upgrade', watch);
    watch(conn.transport);
    conn.once('close', () => {
      packets = 0;
      queue.release();
    });
  }

  /** Remembers the socket under its token: it is closed when the token is revoked or expires. */
  private track(socket: AnySocket, actor: Actor): void {
    const forget = this.watchToken(actor, 'socket', () => socket.disconnect(true));
    socket.on('disconnect', forget);
  }

  /**
   * Ends a session (a socket, a Mesos event stream) when its token is revoked or expires, or its
   * principal is disabled: `close` is called once then. Returns what forgets the session (call it
   * when the session ends of itself). A session without a token (anonymous) is not watched.
   */
  watchToken(actor: Actor, what: string, close: () => void): () => void {
    const tokenId = actor.tokenId;
    if (!tokenId) return () => undefined;
    let set = this.byToken.get(tokenId);
    if (!set) this.byToken.set(tokenId, (set = new Set()));
    let timer: NodeJS.Timeout | undefined;
    const session: TokenSession = {
      actor,
      close: (why) => {
        forget();
        this.logger.log({ tokenId, principal: actor.name }, `token ${why}: closing its ${what}`);
        close();
      },
    };
    const forget = () => {
      if (timer) clearTimeout(timer);
      set.delete(session);
      if (!set.size && this.byToken.get(tokenId) === set) this.byToken.delete(tokenId);
    };
    set.add(session);
    const expiry = actor.tokenExpiresAt?.getTime();
    const arm = () => {
      if (expiry === undefined) return;
      const wait = expiry - Date.now();
      if (wait <= 0) {
        session.close('expired');
        return;
      }
      timer = setTimeout(arm, Math.min(wait, MAX_TIMER_MS));
      timer.unref();
    };
    arm();
    return forget;
  }

  private closeRevoked(r: Revocation): void {
    for (const [tokenId, sessions] of this.byToken)
      for (const session of [...sessions])
        if ('tokenId' in r ? tokenId === r.tokenId : session.actor.principalId === r.principalId) session.close('revoked');
  }

  /**
   * Before Nest closes the HTTP server: its close waits for every connection, upgraded
   * websockets included, so they must be gone first.
   */
  beforeApplicationShutdown(): void {
    this.open = false;
    for (const close of this.otherSessions) close();
    if (!this.server) return;
    this.server.disconnectSockets(true);
    // The HTTP server itself is Nest's to close; close only socket.io's engine.
    this.server.engine.close();
  }
}

/** A session watched for its token's revocation or expiry. */
interface TokenSession {
  actor: Actor;
  close(why: 'revoked' | 'expired'): void;
}

/** An engine.io packet (its data as socket.io encoded it). */
interface EnginePacket {
  data?: string | { byteLength: number };
}

/** What `bound` needs of an engine.io connection (not part of its typed API). */
interface BoundedConnection {
  id: string;
  transport: {
    name: string;
    socket?: { bufferedAmount?: number; terminate?(): void };
    on?(event: 'drain', listener: () => void): void;
  };
  on(event: 'packetCreate' | 'drain' | 'flush' | 'upgrade', listener: (arg: never) => void): void;
  once(event: 'close', listener: () => void): void;
  close(discard?: boolean): void;
}

/** What closeSessions needs of an engine.io connection. */
interface EngineConnection {
  close(): void;
  once(event: 'close', listener: () => void): void;
}

interface EngineConnectionLike {
  transport: EngineTransport;
  on(event: 'upgrade', listener: (transport: EngineTransport) => void): void;
}

/** An authenticated connection may send large messages: on its transport now, and after an upgrade. */
function raiseMessageLimit(conn: EngineConnectionLike): void {
  const raise = (t: EngineTransport) => {
    if (t.name === 'polling') t.maxHttpBufferSize = MAX_MESSAGE_BYTES;
    const receiver = t.socket?._receiver;
    if (receiver) receiver._maxPayload = MAX_MESSAGE_BYTES;
  };
  raise(conn.transport);
  conn.on('upgrade', raise);
}

/** What `coalesceWrites` needs of an engine.io connection (not part of its typed API). */
interface EngineConnection {
  transport: { name: string; send(packets: unknown[]): void; socket?: { _socket?: Socket } };
}

/**
 * The messages sent to one websocket connection in one tick go out in one system call: its
 * TCP socket is corked from the first send of a tick until the tick's end. (Otherwise every
 * message, an update forwarded, a reply, is a write of its own: at hundreds of launches a
 * second, the largest single cost of the control plane.)
 */
function coalesceWrites(conn: EngineConnection): void {
  const transport = conn.transport;
  const raw = transport.socket?._socket;
  if (transport.name !== 'websocket' || typeof raw?.cork !== 'function') return;
  const send = transport.send.bind(transport);
  let corked = false;
  transport.send = (packets) => {
    if (!corked) {
      corked = true;
      raw.cork();
      process.nextTick(() => {
        corked = false;
        raw.uncork();
      });
    }
    send(packets);
  };
}
