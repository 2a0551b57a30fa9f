/**
 * The leader under hostile clients: bodies are read only after the caller is authenticated,
 * within the caller's limit (a declared oversize body is refused unread), and connections are
 * limited in total and per address, with short header timeouts (docs/security.md, "Limits
 * under hostile load").
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { startTestControlPlane, type TestControlPlane } from '../../support/app';
import { until } from '../../support/until';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { code?: string; statusCode?: number; message?: string };
}

/**
 * Sends a request's headers, declaring a body of `length` bytes, and never sends the body: the
 * answer can only come from a server that decided without reading it.
 */
function headersOnly(t: TestControlPlane, path: string, length: number, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.cp.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(length), ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Answer['body'] });
      });
    });
    req.flushHeaders();
  });
}

/** Sends `body` in 1 KB chunks without a declared length (Transfer-Encoding: chunked). */
function chunked(t: TestControlPlane, path: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.cp.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Answer['body'] }));
    });
    for (let i = 0; i < body.length; i += 1024) req.write(body.slice(i, i + 1024));
    req.end();
  });
}

describe('bodies are read after authentication', () => {
  let t: TestControlPlane;
  let operator: string;

  beforeAll(async () => {
    t = await startTestControlPlane({ config: { unauthenticatedBodyLimit: 4096, mesosAllowAnonymous: true } });
    operator = await t.principal('ops', 'OPERATOR');
  });
  afterAll(() => t.close());

  it('answers a request without credentials 401 without reading its body, and closes the connection', async () => {
    const answer = await headersOnly(t, '/api/v1/simulate', 1_000_000);
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('AUTH_TOKEN_MISSING');
    expect(answer.headers.connection).toBe('close');
  });

  it('answers a request with a wrong token 401 without reading its body', async () => {
    const answer = await headersOnly(t, '/api/v1/simulate', 1_000_000, { authorization: 'Bearer arb_not-a-token' });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('AUTH_TOKEN_INVALID');
  });

  it('refuses a declared body over the limit 413 PAYLOAD_TOO_LARGE without reading it, even with a valid token', async () => {
    const answer = await headersOnly(t, '/api/v1/simulate', 2_000_000, { authorization: `Bearer ${operator}` });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(answer.headers.connection).toBe('close');
  });

  it('lets an anonymous Mesos framework send only the unauthenticated limit, unread beyond it', async () => {
    const anonymous = await headersOnly(t, '/api/v1/scheduler', 100_000);
    expect(anonymous.status).toBe(413);
    expect(anonymous.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    // A wrong token is refused before its body is read too.
    const wrong = await headersOnly(t, '/api/v1/scheduler', 100_000, { authorization: 'Bearer arb_not-a-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('AUTH_TOKEN_INVALID');
  });

  it('reads an authenticated body past the unauthenticated limit, and refuses one without credentials as it passes the limit', async () => {
    const big = { change: {}, padding: 'x'.repeat(10_000) };
    const refused = await t.request('POST', '/api/v1/simulate', big, { token: operator });
    expect(refused.status).toBe(400);
    expect((refused.body as { code: string }).code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(refused.body)).toContain('padding');
    const nul = await t.request('POST', '/api/v1/simulate', { change: { removeAgents: ['a\u0000b'] } }, { token: operator });
    expect((nul.body as { code: string }).code).toBe('VALIDATION_FAILED');
    const malformed = await t.request('POST', '/api/v1/simulate', '{"name":', { token: operator });
    expect(malformed.status).toBe(400);
    expect((malformed.body as { code: string }).code).toBe('MALFORMED_JSON');
    // The same size from an anonymous Mesos framework, chunked (no declared length): read up to the limit only.
    const anonymous = await chunked(t, '/api/v1/scheduler', JSON.stringify({ type: 'SUBSCRIBE', ...big }));
    expect(anonymous.status).toBe(413);
    expect(anonymous.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 4096 } });
  });
});

/** A connection from `localAddress` that sends half a request's headers and never the rest. */
function slowClient(t: TestControlPlane, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: t.cp.port, localAddress }, () => {
      socket.write('GET /health HTTP/1.1\r\nHost: arbiter\r\nX-Slow: ');
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
}

function health(t: TestControlPlane, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.cp.url}/health`, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

describe('slow clients', () => {
  let t: TestControlPlane;

  beforeAll(async () => {
    t = await startTestControlPlane({ config: { maxConnectionsPerAddress: 3, headersTimeout: 1, requestTimeout: 1 } });
  });
  afterAll(() => t.close());

  it('closes connections from one address past its limit, and serves other addresses meanwhile', async () => {
    const slow = await Promise.all([1, 2, 3].map(() => slowClient(t, '127.0.0.1')));
    const oneTooMany = net.connect({ host: '127.0.0.1', port: t.cp.port, localAddress: '127.0.0.1' });
    oneTooMany.on('error', () => undefined);
    await closed(oneTooMany);
    expect(await health(t, '127.0.0.2')).toBe(200);
    for (const s of slow) s.destroy();
    await Promise.all(slow.map(closed));
    // Once the server has seen them close, the address may connect again.
    await until(async () => (await health(t, '127.0.0.1').catch(() => 0)) === 200, 'a request from 127.0.0.1 answered again');
  });

  it('closes a connection whose headers do not arrive within the headers timeout', async () => {
    const slow = await slowClient(t, '127.0.0.3');
    slow.on('data', () => undefined);
    await closed(slow);
    expect(slow.destroyed).toBe(true);
  });
});
