/**
 * The socket.io server, attached to the control plane's HTTP server. Every namespace needs a
 * token in the handshake (`auth: { token }`), checked like the REST API's bearer tokens.
 */
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type Namespace, Server } from 'socket.io';
import type { Actor } from '../auth/auth.actor';
import { AuthService } from '../auth/auth.service';
import { toArbiterException } from '../errors/errors.filter';

export interface AuthedSocketData {
  actor: Actor;
}

@Injectable()
export class Realtime implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private server?: Server;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: AuthService,
  ) {}

  get io(): Server {
    if (!this.server) {
      const http = this.adapterHost.httpAdapter.getHttpServer() as HttpServer;
      this.server = new Server(http, {
        path: '/socket.io',
        serveClient: false,
        // Large clusters send big offer batches; a status update is small.
        maxHttpBufferSize: 16 * 1024 * 1024,
        pingInterval: 10_000,
        pingTimeout: 20_000,
        cors: { origin: true, credentials: true },
      });
      this.server.engine.on('connection', coalesceWrites);
    }
    return this.server;
  }

  /** A namespace whose sockets carry the authenticated actor in `socket.data.actor`. */
  namespace(name: string): Namespace {
    const ns = this.io.of(name);
    ns.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      this.auth
        .authenticate(typeof token === 'string' ? `Bearer ${token}` : undefined, null)
        .then((actor) => {
          (socket.data as AuthedSocketData).actor = actor;
          next();
        })
        .catch((err: unknown) => {
          const known = toArbiterException(err);
          const e = new Error(known?.message ?? 'authentication failed') as Error & { data?: unknown };
          e.data = { code: known?.code ?? 'AUTH_TOKEN_INVALID' };
          if (!known) this.logger.warn({ err }, 'socket authentication failed');
          next(e);
        });
    });
    return ns;
  }

  /**
   * Before Nest closes the HTTP server: its close waits for every connection, upgraded
   * websockets included, so they must be gone first.
   */
  beforeApplicationShutdown(): void {
    if (!this.server) return;
    this.server.disconnectSockets(true);
    // The HTTP server itself is Nest's to close; close only socket.io's engine.
    this.server.engine.close();
  }
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
