/** One call to an agent's executor API, as an executor (or an impostor) would make it. */
import { request } from 'node:http';

export function post(
  endpoint: { host: string; port: number },
  body: unknown,
  token?: string,
  contentType = 'application/json',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: endpoint.host,
      port: endpoint.port,
      path: '/api/v1/executor',
      method: 'POST',
      headers: { 'Content-Type': contentType, ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}) },
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
