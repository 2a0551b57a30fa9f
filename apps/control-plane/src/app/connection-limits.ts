/**
 * Limits on the HTTP server's connections, against clients that hold connections open without
 * finishing a request (slowloris): at most `maxConnections` in all (Node's own
 * `server.maxConnections`, which drops the excess at accept) and `maxConnectionsPerAddress` from
 * one remote address (closed as they are accepted); headers must arrive within
 * `headersTimeout` and a whole request within `requestTimeout`, checked every second or so.
 * Each refusal is logged, at most once per `LOG_INTERVAL_MS` per reason, with the number refused
 * since the last line.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { LimitsConfig } from '../config/config.limits';

const LOG_INTERVAL_MS = 10_000;

export type LimitLog = (fields: Record<string, unknown>, message: string) => void;

/** A log line per reason at most every interval, counting what it left out. */
function rateLimited(log: LimitLog, now: () => number = Date.now): (reason: string, fields: Record<string, unknown>) => void {
  const last = new Map<string, { at: number; refused: number }>();
  return (reason, fields) => {
    const entry = last.get(reason);
    if (entry && now() - entry.at < LOG_INTERVAL_MS) {
      entry.refused++;
      return;
    }
    log({ ...fields, refused: (entry?.refused ?? 0) + 1, reason }, `connection refused: ${reason}`);
    last.set(reason, { at: now(), refused: 0 });
  };
}

/** Open connections per remote address, and what the server is told to refuse. */
export interface ConnectionLimiter {
  /** Open connections from an address (tests, metrics). */
  openFrom(address: string): number;
}

export function limitConnections(
  server: Server,
  config: Pick<LimitsConfig, 'maxConnections' | 'maxConnectionsPerAddress' | 'headersTimeout' | 'requestTimeout'>,
  log: LimitLog,
): ConnectionLimiter {
  const headersMs = Math.round(config.headersTimeout * 1000);
  server.headersTimeout = headersMs;
  // Node requires a request timeout no shorter than the headers' one.
  server.requestTimeout = Math.max(headersMs, Math.round(config.requestTimeout * 1000));
  // Read when the server starts listening (Node's default checks every 30 s); not in @types/node.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1000,
    Math.max(100, Math.floor(headersMs / 2)),
  );
  const refuse = rateLimited(log);
  if (config.maxConnections > 0) {
    server.maxConnections = config.maxConnections;
    server.on('drop', (data?: { remoteAddress?: string }) =>
      refuse('too many connections', { limit: config.maxConnections, remoteAddress: data?.remoteAddress }),
    );
  }
  const open = new Map<string, number>();
  if (config.maxConnectionsPerAddress > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? 'unknown';
      const count = (open.get(address) ?? 0) + 1;
      if (count > config.maxConnectionsPerAddress) {
        refuse('too many connections from one address', { limit: config.maxConnectionsPerAddress, remoteAddress: address });
        socket.destroy();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
    });
  }
  return { openFrom: (address) => open.get(address) ?? 0 };
}
