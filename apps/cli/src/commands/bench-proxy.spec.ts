import * as net from 'node:net';
import { until } from '@arbiter/test-support';
import { FaultProxy } from './bench-proxy';

/** An echo server, and a client of the proxy that collects what comes back. */
async function echo(): Promise<net.Server> {
  const server = net.createServer((s) => s.pipe(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function client(port: number) {
  const s = net.connect(port, '127.0.0.1');
  const got: string[] = [];
  let closed = false;
  s.on('data', (d: Buffer) => got.push(d.toString()));
  s.on('error', () => undefined);
  s.on('close', () => (closed = true));
  return { s, got: () => got.join(''), closed: () => closed };
}

describe('FaultProxy', () => {
  let server: net.Server;
  let proxy: FaultProxy;
  beforeEach(async () => {
    server = await echo();
    proxy = new FaultProxy('127.0.0.1', (server.address() as net.AddressInfo).port, 'tag');
    await proxy.listen();
  });
  afterEach(async () => {
    await proxy.close();
    await new Promise((r) => server.close(r));
  });

  it('passes bytes both ways; stalled, it holds them back and closes nothing; healed, it resets the stalled connections and passes new ones', async () => {
    const a = client(proxy.port);
    a.s.write('one');
    await until(() => a.got() === 'one', 5_000, 'the echo');
    proxy.stall();
    a.s.write('two');
    proxy.heal();
    await until(() => a.closed(), 5_000, 'the stalled connection reset');
    // What was written while stalled never arrived.
    expect(a.got()).toBe('one');
    const b = client(proxy.port);
    b.s.write('three');
    await until(() => b.got() === 'three', 5_000, 'a new connection passing');
    b.s.destroy();
  });

  it('stalls only the connections whose first bytes carry its tag when told so', async () => {
    const tagged = client(proxy.port);
    const other = client(proxy.port);
    tagged.s.write('GET /?tag');
    other.s.write('GET /?x');
    await until(() => tagged.got() === 'GET /?tag' && other.got() === 'GET /?x', 5_000, 'both echoed');
    proxy.stall('tagged');
    tagged.s.write('!');
    other.s.write('!');
    await until(() => other.got() === 'GET /?x!', 5_000, 'the untagged connection passing');
    proxy.heal();
    await until(() => tagged.closed(), 5_000, 'the tagged connection reset');
    expect(tagged.got()).toBe('GET /?tag');
    expect(other.closed()).toBe(false);
    other.s.destroy();
  });
});
