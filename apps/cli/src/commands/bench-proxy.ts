/**
 * A TCP proxy the failover bench puts in front of PostgreSQL (one per replica) and of each
 * replica (for its agents and frameworks), to inject network faults: it can stall connections
 * (bytes are held back, nothing is closed: a partition, or a database that went silent) and
 * heal them (the stalled connections are reset, as their TCP timeouts would end them).
 */
import * as net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** The client's first bytes held the proxy's tag (a simulated agent's connection, say). */
  tagged: boolean;
  seen: boolean;
}

export class FaultProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<Pair>();
  private stalled: 'none' | 'all' | 'tagged' = 'none';
  port = 0;

  /** `tag`: a string whose presence in a connection's first bytes marks it (see stall('tagged')). */
  constructor(
    private readonly host: string,
    private readonly targetPort: number,
    private readonly tag?: string,
  ) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.host);
      const pair: Pair = { client, upstream, tagged: false, seen: false };
      this.pairs.add(pair);
      const drop = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.on('data', (d: Buffer) => {
        if (!pair.seen) {
          pair.seen = true;
          pair.tagged = this.tag !== undefined && d.includes(this.tag);
        }
        if (!this.isStalled(pair)) upstream.write(d);
      });
      upstream.on('data', (d: Buffer) => this.isStalled(pair) || client.write(d));
    });
  }

  private isStalled(pair: Pair): boolean {
    return this.stalled === 'all' || (this.stalled === 'tagged' && pair.tagged);
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Holds back every byte of every connection (or of the tagged ones), new ones included. */
  stall(which: 'all' | 'tagged' = 'all'): void {
    this.stalled = which;
  }

  /** Bytes pass again; the stalled connections are reset. */
  heal(): void {
    const was = this.stalled;
    this.stalled = 'none';
    for (const p of [...this.pairs])
      if (was === 'all' || (was === 'tagged' && p.tagged)) {
        p.client.destroy();
        p.upstream.destroy();
        this.pairs.delete(p);
      }
  }

  async close(): Promise<void> {
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
