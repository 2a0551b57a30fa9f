/**
 * The control planes a client may reach. Several replicas share one database and one of them
 * leads; agents and frameworks must reach the leader, and a standby refuses them with
 * NOT_LEADER and the leader's URL (as a Mesos master answers 307). `--master` and
 * ARBITER_MASTER take a comma-separated list: a client starts with the first URL, follows a
 * standby's redirect, and on a failed connection moves to the next one, round the list.
 */
export class MasterUrls {
  readonly urls: readonly string[];
  private index = 0;
  private redirect?: string;
  /** URLs that failed since the last accepted session. */
  private misses = 0;

  /** Throws an Error naming the bad entry if `spec` is not a list of http(s) URLs. */
  constructor(spec: string | readonly string[]) {
    const list = (typeof spec === 'string' ? spec.split(',') : spec).map((s) => s.trim()).filter(Boolean);
    if (!list.length) throw new Error('no control-plane URL given (a comma-separated list, e.g. http://cp-1:8080,http://cp-2:8080)');
    this.urls = list.map((raw) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new Error(`'${raw}' is not a URL (expected e.g. http://127.0.0.1:8080)`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`'${raw}' must use http:// or https://`);
      return url.toString().replace(/\/+$/, '');
    });
  }

  /** The URL to try now. */
  get current(): string {
    return this.redirect ?? this.urls[this.index];
  }

  /**
   * After a connection was refused or failed: the leader a standby named, if it named one,
   * else the next URL of the list. Returns the URL to try next.
   */
  failed(leader?: string | null): string {
    if (leader && leader !== this.redirect) this.redirect = leader.replace(/\/+$/, '');
    else {
      this.redirect = undefined;
      this.index = (this.index + 1) % this.urls.length;
      this.misses++;
    }
    return this.current;
  }

  /** A session was accepted: the next failure starts a new round of the list. */
  connected(): void {
    this.misses = 0;
  }

  /** Every URL of the list has failed since the last accepted session (retrying at once is pointless). */
  get exhausted(): boolean {
    return this.misses >= this.urls.length;
  }

  toString(): string {
    return this.urls.join(',');
  }
}

/** Default milliseconds a connection attempt may take before the client tries the next control plane. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;

/** What socketClientOptions needs. */
export interface SocketClientSettings {
  token: string;
  /** Certificates to trust for https:// (Node's `ca` replaces the built-in roots: include them). */
  ca?: string[];
  /** Milliseconds a connection attempt may take (default DEFAULT_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

/** The socket.io client options an agent or a scheduler connects with (a subset of socket.io-client's). */
export interface SocketClientOptions {
  auth: { token: string };
  autoConnect: false;
  reconnection: true;
  reconnectionDelay: number;
  reconnectionDelayMax: number;
  timeout: number;
  transports: ['websocket'];
  forceNew: true;
  ca?: string[];
}

/**
 * The options of every agent's and scheduler's socket: reconnect forever, soon (250 ms, at most
 * 2 s apart), and give up on a connection attempt after `connectTimeoutMs` (a paused control
 * plane's kernel accepts the TCP connection but nothing answers), so the client moves on to the
 * next control plane within seconds rather than socket.io's 20 s. How soon a silent control
 * plane is noticed on an open connection is the server's to say (ARBITER_PING_INTERVAL and
 * ARBITER_PING_TIMEOUT, sent in the handshake). One connection per client (`forceNew`): sockets
 * of one namespace on a shared connection would share their events.
 */
export function socketClientOptions(settings: SocketClientSettings): SocketClientOptions {
  const timeout = settings.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new Error(`connect timeout must be a positive number of milliseconds (got ${timeout})`);
  return {
    auth: { token: settings.token },
    autoConnect: false,
    reconnection: true,
    reconnectionDelay: 250,
    reconnectionDelayMax: 2_000,
    timeout,
    transports: ['websocket'],
    forceNew: true,
    ...(settings.ca ? { ca: settings.ca } : {}),
  };
}

/** What a standby's refusal carries in socket.io's connect_error `data`. */
interface NotLeaderData {
  code: 'NOT_LEADER';
  /** The leader's advertised URL, or null while the standby knows of none. */
  leader: string | null;
}

/** The leader a connect_error names, if it is a standby's refusal (undefined otherwise; null: no leader known). */
export function notLeader(err: { data?: unknown }): string | null | undefined {
  const data = err.data as Partial<NotLeaderData> | undefined;
  return data?.code === 'NOT_LEADER' ? (data.leader ?? null) : undefined;
}

/**
 * How to go on after a connection attempt failed that is not refused for good (a refused token
 * is the caller's to handle first): the leader a standby named; null for any other refusal
 * (no leader known yet, or DATABASE_UNAVAILABLE from a control plane cut off from its
 * database), which socket.io does not retry by itself; undefined when the control plane did
 * not answer (socket.io retries by itself).
 */
export function refusalOf(err: { data?: unknown }): string | null | undefined {
  const leader = notLeader(err);
  if (leader !== undefined) return leader;
  const code = (err.data as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? null : undefined;
}

/**
 * Points a socket.io client socket at another control plane: its next connection attempt (and
 * every automatic reconnection) goes to `base` + `namespace`. socket.io's Manager opens each
 * connection from its `uri`, which its typings keep private.
 */
function retargetSocket(socket: { io: object }, namespace: string, base: string): void {
  (socket.io as { uri: string }).uri = new URL(namespace, base).toString();
}

/** What reconnectElsewhere needs of a socket.io client socket. */
interface RetargetableSocket {
  io: object;
  connect(): unknown;
  disconnect(): unknown;
}

/**
 * After a connection attempt failed: a standby refused the session (`leader` is the leader it
 * names, or null when it knows none) or the control plane did not answer (`leader`
 * undefined). The next attempt goes to the leader named, else to the next URL of the list, at
 * once (100 ms) while some URL of the list has not failed yet; once every URL has failed,
 * socket.io's backoff paces the attempts (a refusal is not retried by socket.io, so it is
 * retried here, after a second).
 */
export function reconnectElsewhere(
  socket: RetargetableSocket,
  namespace: string,
  masters: MasterUrls,
  leader: string | null | undefined,
  stillWanted: () => boolean,
): void {
  const next = masters.failed(leader);
  const soon = Boolean(leader) || !masters.exhausted;
  retargetSocket(socket, namespace, next);
  // Unreachable and every URL tried: socket.io keeps retrying with its backoff, at `next`.
  if (leader === undefined && !soon) return;
  socket.disconnect();
  // Not unref'd: while it waits, this timer is all that keeps a client's process alive.
  setTimeout(
    () => {
      if (stillWanted()) socket.connect();
    },
    soon ? 100 : 1_000,
  );
}

/**
 * The connection ended: when the control plane stopped answering (socket.io's `ping timeout`:
 * it is paused, or cut off), socket.io's own reconnection goes to the next URL of the list (a
 * standby there names the leader) instead of waiting on the silent one. Other reasons keep the
 * URL: a closed or refused connection fails fast and moves on through connect_error.
 */
export function leftSilent(socket: { io: object }, namespace: string, masters: MasterUrls, reason: string): void {
  if (reason === 'ping timeout' && masters.urls.length > 1) retargetSocket(socket, namespace, masters.failed());
}
