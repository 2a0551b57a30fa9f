/** One call to an agent's executor API, as an executor (or an impostor) would make it. */
import { request } from 'node:http';

/** A POST to the agent's executor API with `headers`. */
function executorRequest(endpoint: { host: string; port: number }, headers: Record<string, string>) {
  return request({ host: endpoint.host, port: endpoint.port, path: '/api/v1/executor', method: 'POST', headers });
}

export function post(
  endpoint: { host: string; port: number },
  body: unknown,
  token?: string,
  contentType = 'application/json',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = executorRequest(endpoint, {
      'Content-Type': contentType,
      ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}),
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** An executor's SUBSCRIBE stream as a raw client holds it: its events (JSON, RecordIO-framed) as they arrive. */
export interface SubscribeStream {
  status: number;
  events: Array<{ type: string } & Record<string, unknown>>;
  close(): void;
}

/** Opens a SUBSCRIBE (JSON) and resolves once the agent answered its status line. */
export function subscribe(endpoint: { host: string; port: number }, body: unknown, token: string): Promise<SubscribeStream> {
  return new Promise((resolve, reject) => {
    const req = executorRequest(endpoint, {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      Authorization: `Bearer ${token}`,
    });
    req.on('response', (res) => {
      const stream: SubscribeStream = { status: res.statusCode ?? 0, events: [], close: () => req.destroy() };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        // RecordIO: "<length>\n<record>"; lengths count bytes, and these events are ASCII.
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const length = Number(buffer.slice(0, nl));
          if (buffer.length < nl + 1 + length) break;
          stream.events.push(JSON.parse(buffer.slice(nl + 1, nl + 1 + length)) as SubscribeStream['events'][number]);
          buffer = buffer.slice(nl + 1 + length);
        }
      });
      res.on('error', () => undefined);
      resolve(stream);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
