/**
 * Faults a test injects on purpose: a TCP proxy in front of PostgreSQL that can be cut, and a
 * framework that launches short tasks one per offer and records everything it sees.
 */
import * as net from 'node:net';
import { Resources } from '@arbiter/allocator';
import { LAUNCH_UNKNOWN, type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { ADMIN_TOKEN } from './admin-token';

/**
 * A TCP proxy in front of PostgreSQL that can be cut: while cut, bytes are no longer passed
 * either way and the connections stay open (a partition: neither side sees a close).
 */
export class CuttableProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private cut = false;
  port = 0;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.host);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      const drop = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.on('data', (d) => this.cut || upstream.write(d));
      upstream.on('data', (d) => this.cut || client.write(d));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Stops passing bytes; connections hang as in a network partition. */
  partition(): void {
    this.cut = true;
  }

  /** The network is back: the hung connections are reset (as their TCP timeouts would), new ones pass. */
  heal(): void {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
    this.cut = false;
  }

  async close(): Promise<void> {
    this.heal();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A framework launching `total` short tasks (`sleep 0.3` unless told), one per offer, and recording all it sees. */
export class Launcher {
  readonly s: Scheduler;
  readonly offers: Array<{ offer: Offer; at: number }> = [];
  readonly updates: Array<{ update: StatusUpdate; at: number }> = [];
  /** Task ids handed out so far. */
  total = 0;
  /** Task ids not launched yet (a launch that failed puts its id back). */
  private readonly waiting: string[] = [];
  /** Task ids whose launch was not answered (LAUNCH_UNKNOWN): the SDK's reconciliation says whether they were stored. */
  private readonly unknown = new Set<string>();
  /** Offers kept unanswered, to answer after a failover. */
  readonly held: Offer[] = [];
  hold = 0;

  constructor(
    readonly name: string,
    masters: string,
    total: number,
    private readonly options: { failoverTimeoutSeconds?: number; shell?: string } = {},
  ) {
    this.more(total);
    this.s = new Scheduler({
      master: masters,
      token: ADMIN_TOKEN,
      framework: { name, roles: [name], failoverTimeoutSeconds: options.failoverTimeoutSeconds ?? 0 },
    });
    this.s.on('offers', (offers) => {
      for (const offer of offers) this.onOffer(offer);
    });
    this.s.on('update', (update) => {
      this.updates.push({ update, at: Date.now() });
      // A launch that was never answered and is unknown to the control plane: launch it again.
      if (update.reason === 'REASON_RECONCILIATION' && this.unknown.delete(update.taskId) && ['LOST', 'UNKNOWN'].includes(update.state))
        this.waiting.push(update.taskId);
    });
    this.s.on('error', () => undefined);
  }

  private onOffer(offer: Offer): void {
    this.offers.push({ offer, at: Date.now() });
    if (this.hold > 0) {
      this.hold--;
      this.held.push(offer);
      return;
    }
    const taskId = this.waiting.shift();
    if (taskId === undefined) {
      void this.s.decline(offer.id, { refuseSeconds: 0.2 }).catch(() => undefined);
      return;
    }
    this.s
      .launch(offer, [
        {
          taskId,
          name: taskId,
          command: { shell: this.options.shell ?? 'sleep 0.3' },
          resources: Resources.fromScalars({ cpus: 0.1, mem: 8 }).toJSON(),
        },
      ])
      .catch((err: unknown) => {
        // Launched after all (the answer was lost with the old leader): nothing to do again.
        if ((err as { code?: string }).code === 'DUPLICATE_TASK') return;
        // Not answered: stored or not, the reconciliation the SDK asks for tells.
        if ((err as { code?: string }).code === LAUNCH_UNKNOWN) {
          this.unknown.add(taskId);
          return;
        }
        // The accept went to a leader that died, or the offer was void: launch it later.
        this.waiting.push(taskId);
      });
  }

  /** `n` more tasks to launch. */
  more(n: number): void {
    for (let i = 0; i < n; i++) this.waiting.push(`${this.name}-${this.total++}`);
  }

  /** Distinct updates (by uuid) of a task, in the order they arrived; reconciliation answers (a state told again) aside. */
  statesOf(taskId: string): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const { update } of this.updates)
      if (update.taskId === taskId && update.reason !== 'REASON_RECONCILIATION' && !seen.has(update.updateUuid)) {
        seen.add(update.updateUuid);
        out.push(update.state);
      }
    return out;
  }

  get finished(): number {
    return new Set(this.updates.filter((u) => u.update.state === 'FINISHED').map((u) => u.update.taskId)).size;
  }
}
