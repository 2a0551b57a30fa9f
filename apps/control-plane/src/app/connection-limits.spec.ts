import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';
import { until } from '@arbiter/test-support';
import { limitConnections } from './connection-limits';

const closed = (socket: net.Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));

describe('limitConnections', () => {
  let server: http.Server;
  let port: number;
  let time = 0;
  const log = jest.fn();

  beforeEach(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    limitConnections(server, { maxConnections: 0, maxConnectionsPerAddress: 1, headersTimeout: 10, requestTimeout: 30 }, log, () => time);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const connect = () => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    return socket;
  };

  it('closes connections past the per-address limit and logs the refusals at most once per 10 s, counting those it left out', async () => {
    const held = connect();
    await new Promise((resolve) => held.once('connect', resolve));
    for (let i = 0; i < 3; i++) await closed(connect());
    expect(log).toHaveBeenCalledTimes(1);
    expect(log).toHaveBeenLastCalledWith(
      expect.objectContaining({ reason: 'too many connections from one address', limit: 1, refused: 1, remoteAddress: '127.0.0.1' }),
      'connection refused: too many connections from one address',
    );
    time += 10_001;
    await closed(connect());
    expect(log).toHaveBeenCalledTimes(2);
    expect(log).toHaveBeenLastCalledWith(expect.objectContaining({ refused: 3 }), expect.any(String));
    // The held connection is served, and once it closes the address may connect again.
    held.destroy();
    await closed(held);
    const ask = () =>
      new Promise<string>((resolve) => {
        const socket = connect();
        socket.once('data', (d: Buffer) => {
          resolve(d.toString());
          socket.destroy();
        });
        socket.once('close', () => resolve(''));
        socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      });
    // (Once the server has seen it close: the client sees its own close first.)
    await until(async () => (await ask()).includes('200 OK'), 'a request answered again');
  });

  it('sets the header and request timeouts, the request timeout never below the headers one', () => {
    const s = http.createServer();
    limitConnections(s, { maxConnections: 5, maxConnectionsPerAddress: 0, headersTimeout: 20, requestTimeout: 5 }, log);
    expect([s.headersTimeout, s.requestTimeout, s.maxConnections]).toEqual([20_000, 20_000, 5]);
  });
});
