/**
 * Leader election through PostgreSQL. Every replica keeps a coordination connection; the one
 * whose session holds the leader lock (a session advisory lock) leads, under a new term whose
 * epoch fences the master's writes. A standby tries the lock every poll; a leader confirms
 * every poll that its session is alive and its term current. A leader steps down at once when
 * its coordination session fails (an error, a reset, the backend killed: PostgreSQL may have
 * freed the lock already, and a standby may lead within a poll), and when it has not been able
 * to confirm for half the lease (PostgreSQL frees the lock of a session silent for the whole
 * lease, so the old leader has stopped before a new one can start). Every duration is measured
 * on a monotonic clock: a step of the wall clock neither deposes a leader nor keeps one. The
 * same connection carries the notifications between replicas (see `listen` and `notify`).
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { type Clock, SystemClock, type TimerHandle } from '../kernel/clock';
import { CoordinationConnection, LeadershipRepository, type Notification, type Term } from './leadership.repository';
import { MasterDatabase } from '../database/master-database';

export type ReplicaRole = 'leader' | 'standby';

/** What the master does when this replica wins or loses leadership. */
export interface LeaderDuties {
  lead(epoch: number): Promise<void>;
  stepDown(reason: string): Promise<void>;
}

/** Channel on which a new leader announces itself. */
const LEADER_CHANNEL = 'arbiter_leader';

@Injectable()
export class Leadership {
  private readonly logger = new Logger('Leadership');
  /** This replica, unique per start: host, process and a random part. */
  readonly replica = `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  private roleNow: ReplicaRole = 'standby';
  private term?: Term;
  private connection?: CoordinationConnection;
  private connecting?: Promise<CoordinationConnection>;
  /** When the leader last confirmed its lock, on `clock.now()` (monotonic); null before any poll. */
  private lastConfirmed: number | null = null;
  private timer?: TimerHandle;
  /** Durations and the poll timer; monotonic (the wall clock may step). */
  private readonly clock: Clock = new SystemClock();
  private duties?: LeaderDuties;
  private ticking = false;
  /** The master starting under a term just won (see `compete`). */
  private leading?: Promise<void>;
  private stopped = false;
  private ownUrl = '';
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private readonly reconnectListeners = new Set<() => void>();

  constructor(
    private readonly repo: LeadershipRepository,
    private readonly masterDb: MasterDatabase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get role(): ReplicaRole {
    return this.roleNow;
  }

  get isLeader(): boolean {
    return this.roleNow === 'leader';
  }

  /** The current term's epoch as this replica last saw it (null before any term). */
  get epoch(): number | null {
    return this.term?.epoch ?? null;
  }

  /** The leader's advertised URL as this replica last saw it. */
  get leaderUrl(): string | null {
    return this.term?.url ?? null;
  }

  /** This replica's advertised URL. */
  get url(): string {
    return this.ownUrl;
  }

  private get leaseMs(): number {
    return this.config.leaderLease * 1000;
  }

  private get pollMs(): number {
    return Math.min(1000, this.leaseMs / 4);
  }

  /**
   * Starts competing for leadership; resolves once the first attempt is done (a lone replica
   * leads by then). `listenPort` gives the default advertised URL.
   */
  async start(duties: LeaderDuties, listenPort: number): Promise<void> {
    this.duties = duties;
    const scheme = this.config.tlsCert ? 'https' : 'http';
    this.ownUrl = this.config.advertiseUrl ?? `${scheme}://${os.hostname()}:${listenPort}`;
    await this.tick();
    this.timer = this.clock.every(this.pollMs, () => {
      this.watchdog();
      void this.tick();
    });
    // Polls go on meanwhile, so a long start (a large cluster's state to rebuild) keeps the lock.
    await this.leading;
  }

  /** Calls `listener` with each payload another replica (or this one) sends on `channel`. */
  listen(channel: string, listener: (payload: string) => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    if (set.size === 1) void this.connection?.listen(channel).catch((err: unknown) => this.dropConnection(err));
    return () => set.delete(listener);
  }

  /** Called after the coordination connection came back: notifications may have been missed. */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Sends a notification to every replica, after the caller's commit (through the REST pool). */
  async notify(channel: string, payload: string): Promise<void> {
    await this.repo.notify(channel, payload);
  }

  /** Stops competing; a leader resigns (its lock goes with its session). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    // A stop asked for is no warning.
    if (this.isLeader) await this.resign('the control plane is stopping', 'log');
    await this.connection?.close();
    this.connection = undefined;
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const conn = await this.connect();
      if (this.isLeader) await this.confirm(conn);
      else await this.compete(conn);
    } catch (err) {
      this.dropConnection(err);
    } finally {
      this.ticking = false;
    }
  }

  /** A leader that has not confirmed its lock for half the lease steps down (whatever a poll is waiting for). */
  private watchdog(): void {
    if (this.isLeader && this.clock.now() - (this.lastConfirmed ?? 0) > this.leaseMs / 2)
      void this.resign(`it could not confirm its lock with PostgreSQL for ${this.config.leaderLease / 2} s`);
  }

  private async connect(): Promise<CoordinationConnection> {
    if (this.connection) return this.connection;
    const first = this.lastConfirmed === null && !this.connecting;
    const opened: { conn?: CoordinationConnection } = {};
    this.connecting ??= CoordinationConnection.open({
      url: this.repo.databaseUrl(),
      replica: this.replica,
      leaseMs: this.leaseMs,
      channels: [LEADER_CHANNEL, ...this.listeners.keys()],
      onNotification: (n) => this.deliver(n),
      onLost: (err) => {
        // Only the session in use counts (an old one's late end is no news).
        if (this.connection === opened.conn) this.dropConnection(err);
      },
    }).finally(() => (this.connecting = undefined));
    const conn = await this.connecting;
    opened.conn ??= conn;
    this.connection = conn;
    if (!first) {
      this.logger.log('coordination connection to PostgreSQL restored');
      for (const l of this.reconnectListeners) l();
    }
    return conn;
  }

  /**
   * The coordination session failed. A leader stops leading at once: its lock may be free
   * already (PostgreSQL frees it the moment the session ends), and a standby takes it within
   * a poll; the fence refuses whatever the old leader still writes, but its sessions and
   * clients must go to the new leader now, not at the watchdog's L/2.
   */
  private dropConnection(err: unknown): void {
    const conn = this.connection;
    if (!conn) return;
    this.connection = undefined;
    const message = err instanceof Error ? err.message : String(err);
    this.logger.warn({ err: message, role: this.roleNow }, 'coordination connection to PostgreSQL lost');
    void conn.close();
    if (this.isLeader) void this.resign(`its coordination session with PostgreSQL failed (${message})`);
  }

  private deliver(n: Notification): void {
    if (n.channel === LEADER_CHANNEL) {
      // A new leader: refresh the cached term at the next poll (at once when idle).
      void this.tick();
      return;
    }
    for (const l of this.listeners.get(n.channel) ?? []) {
      try {
        l(n.payload ?? '');
      } catch (err) {
        this.logger.error({ err, channel: n.channel }, 'notification listener failed');
      }
    }
  }

  /** Leader: the session is alive (it holds the lock) and no later term has begun. */
  private async confirm(conn: CoordinationConnection): Promise<void> {
    const asked = this.clock.now();
    const current = await conn.currentTerm();
    const tookMs = this.clock.now() - asked;
    if (tookMs > this.pollMs)
      this.logger.warn({ tookMs, sinceConfirmedMs: asked - (this.lastConfirmed ?? asked) }, 'confirming the leader lock is slow');
    if (current && this.term && current.epoch !== this.term.epoch) {
      this.term = current;
      await this.resign(`a later term (${current.epoch}) has begun`);
      return;
    }
    this.lastConfirmed = this.clock.now();
  }

  /** Standby: takes the lock if it is free, else notes who leads. */
  private async compete(conn: CoordinationConnection): Promise<void> {
    if (!(await conn.tryLeaderLock())) {
      this.term = (await conn.currentTerm()) ?? this.term;
      this.lastConfirmed = this.clock.now();
      return;
    }
    const term = await conn.beginTerm(this.replica, this.ownUrl);
    this.term = term;
    this.lastConfirmed = this.clock.now();
    try {
      await this.masterDb.open(term.epoch);
    } catch (err) {
      await this.failedToLead(err, term);
      return;
    }
    this.roleNow = 'leader';
    this.logger.log({ epoch: term.epoch, url: term.url }, 'this replica is the leader');
    // The master starts outside this poll: the next polls confirm the lock while it does (a
    // session silent for the lease would lose it, and the watchdog would see no confirmation).
    this.leading = (async () => {
      try {
        await this.duties?.lead(term.epoch);
        await conn.notify(LEADER_CHANNEL, String(term.epoch)).catch(() => undefined);
      } catch (err) {
        await this.failedToLead(err, term);
      } finally {
        this.leading = undefined;
      }
    })();
  }

  private async failedToLead(err: unknown, term: Term): Promise<void> {
    this.logger.error({ err, epoch: term.epoch }, 'could not start leading; giving the lock up');
    await this.resign('it could not start leading');
    this.dropConnection(err);
  }

  /** Stops leading: the master stops, its pool closes, the lock goes with the session. */
  private async resign(reason: string, level: 'log' | 'warn' = 'warn'): Promise<void> {
    if (!this.isLeader) return;
    this.roleNow = 'standby';
    this.logger[level]({ epoch: this.term?.epoch, reason }, `this replica is no longer the leader: ${reason}`);
    try {
      await this.duties?.stepDown(reason);
    } catch (err) {
      this.logger.error({ err }, 'stepping down failed');
    }
    await this.masterDb.close();
    // The lock is released with the session: end it so a standby can take over at once.
    const conn = this.connection;
    this.connection = undefined;
    await conn?.close();
  }
}
