/**
 * An HTTP endpoint that answers as an agent's executor API does (Mesos v1, JSON): SUBSCRIBE
 * gets a RecordIO stream the test writes events to, other calls 202. It records every call, so
 * that tests of executor clients (the SDK's Executor, the default executor) can see what they
 * send without an agent.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ExecutorCall {
  /** The Authorization header. */
  auth?: string;
  body: { type: string; executor_id: { value: string }; framework_id: { value: string } } & Record<string, unknown>;
}

export interface ExecutorEndpoint {
  /** host:port, as MESOS_AGENT_ENDPOINT gives it. */
  address: string;
  calls: ExecutorCall[];
  /** The SUBSCRIBE streams, oldest first. */
  streams: http.ServerResponse[];
  server: http.Server;
  /** Writes events to the latest stream, each as one RecordIO record. */
  send(...events: object[]): void;
  /** Loses the next `n` calls of `type` on the way: their connection is cut, unanswered and unrecorded. */
  dropNext(type: string, n?: number): void;
  /** Subscriptions from now are recorded but answered only once the returned function is called. */
  holdSubscriptions(): () => void;
  close(): Promise<void>;
}

/** One event as a RecordIO record: its length in bytes, a newline, the JSON. */
export function recordIO(event: object): string {
  const text = JSON.stringify(event);
  return `${Buffer.byteLength(text)}\n${text}`;
}

export async function startExecutorEndpoint(): Promise<ExecutorEndpoint> {
  const calls: ExecutorCall[] = [];
  const streams: http.ServerResponse[] = [];
  const drops = new Map<string, number>();
  let held: Array<() => void> | undefined;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as ExecutorCall['body'];
      const dropping = drops.get(body.type) ?? 0;
      if (dropping > 0) {
        drops.set(body.type, dropping - 1);
        req.socket.destroy();
        return;
      }
      calls.push({ auth: req.headers.authorization, body });
      if (body.type !== 'SUBSCRIBE') {
        res.writeHead(202).end();
        return;
      }
      const open = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        streams.push(res);
      };
      if (held) held.push(open);
      else open();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    streams,
    server,
    send: (...events) => streams.at(-1)?.write(events.map(recordIO).join('')),
    dropNext: (type, n = 1) => drops.set(type, (drops.get(type) ?? 0) + n),
    holdSubscriptions: () => {
      const mine: Array<() => void> = [];
      held = mine;
      return () => {
        if (held === mine) held = undefined;
        for (const open of mine) open();
      };
    },
    close: async () => {
      for (const s of streams) s.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
