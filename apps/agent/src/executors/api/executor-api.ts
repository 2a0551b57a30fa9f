/**
 * The executor HTTP API (Mesos's `POST /api/v1/executor`) on the agent's own listener, bound
 * where its executors reach it (loopback unless configured). Every call carries its executor's
 * credential (`Authorization: Bearer <MESOS_EXECUTOR_AUTHENTICATION_TOKEN>`): without a known
 * one it is 401; with another executor's ids than the credential's, 403. Bodies are JSON or
 * protobuf; SUBSCRIBE answers with a RecordIO stream of events in the encoding the executor
 * accepts. Status codes and messages are Mesos's (src/slave/http.cpp). The same credential
 * makes the agent API calls of its nested containers (`POST /api/v1`, agent-api.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventStream, ExecutorRun } from '../executor-run';
import { tokenMatches } from '../executor-run';
import type { Executors } from '../executors';
import { AGENT_API_PATH, agentCall } from './agent-api';
import { decodeCall, encodeEvent, JSON_TYPE, type MediaType, PROTOBUF_TYPE, WireError } from './wire';

export const EXECUTOR_API_PATH = '/api/v1/executor';
/** Larger bodies are refused (413): updates with data and framework messages are at most 1 MiB. */
const MAX_BODY = 4 * 1024 * 1024;

export interface ExecutorApiOptions {
  /** Address to listen on (default 127.0.0.1: executors on this machine only). */
  host?: string;
  /** Port (default: the one of the last run, so executors that outlived a restart reach it; else any). */
  port?: number;
}

export class ExecutorApi {
  private readonly server: Server;
  private address?: { host: string; port: number };

  constructor(private readonly executors: Executors) {
    this.server = createServer((req, res) => void this.handle(req, res));
    // Streams stay open as long as their executor is subscribed.
    this.server.requestTimeout = 0;
  }

  /** Listens; resolves with the address executors are given (MESOS_AGENT_ENDPOINT). */
  async listen(options: ExecutorApiOptions = {}): Promise<{ host: string; port: number }> {
    const host = options.host ?? '127.0.0.1';
    const last = this.executors.checkpoints.lastPort();
    // Port 0 (or none) in the options: the last run's, else any.
    const port = options.port === undefined || options.port === 0 ? (last ?? 0) : options.port;
    await new Promise<void>((resolve, reject) => {
      const retryAnyPort = (err: Error) => {
        // The last run's port is taken by now: any port (recovered executors cannot come back, and are ended by their recovery timeout).
        if (port !== 0 && !options.port) {
          this.server.once('error', reject);
          this.server.listen(0, host, resolve);
        } else reject(err);
      };
      this.server.once('error', retryAnyPort);
      this.server.listen(port, host, () => {
        this.server.off('error', retryAnyPort);
        resolve();
      });
    });
    this.address = { host, port: (this.server.address() as AddressInfo).port };
    this.executors.checkpoints.recordPort(this.address.port);
    return this.address;
  }

  get endpoint(): { host: string; port: number } | undefined {
    return this.address;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const at = (req.url ?? '').split('?')[0];
      if (at !== EXECUTOR_API_PATH && at !== AGENT_API_PATH)
        throw new WireError(404, `no such endpoint (the executor API is POST ${EXECUTOR_API_PATH}, the agent API POST ${AGENT_API_PATH})`);
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        throw new WireError(405, `Expecting one of { 'POST' }, but received '${req.method}'`);
      }
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (!contentType) throw new WireError(400, "Expecting 'Content-Type' to be present");
      if (contentType !== JSON_TYPE && contentType !== PROTOBUF_TYPE)
        throw new WireError(415, `Expecting 'Content-Type' of ${JSON_TYPE} or ${PROTOBUF_TYPE}`);
      const run = this.authenticate(req);
      const body = await readBody(req);
      if (at === AGENT_API_PATH) {
        if (contentType !== JSON_TYPE) throw new WireError(415, `Expecting 'Content-Type' of ${JSON_TYPE} (the agent API takes JSON here)`);
        const answer = await agentCall(this.executors.nested, run, body);
        if (answer) res.writeHead(200, { 'Content-Type': JSON_TYPE }).end(JSON.stringify(answer));
        else reply(res, 200);
        return;
      }
      const call = decodeCall(contentType, body);
      if (call.framework_id.value !== run.frameworkId || call.executor_id.value !== run.spec.executorId)
        throw new WireError(
          403,
          `this credential speaks for executor '${run.spec.executorId}' of framework '${run.frameworkId}' only, not for executor '${call.executor_id.value}' of framework '${call.framework_id.value}'`,
        );
      if (call.type === 'HEARTBEAT') {
        reply(res, 202);
        return;
      }
      if (call.type === 'UNKNOWN') throw new WireError(501, "Received 'UNKNOWN' call");
      if (call.type === 'SUBSCRIBE') {
        this.subscribe(req, res, run, call);
        return;
      }
      if (run.state === 'REGISTERING') throw new WireError(403, 'Executor is not subscribed');
      const protocol = this.executors.protocol;
      if (call.type === 'UPDATE') protocol.update(run, call);
      else protocol.message(run, call);
      reply(res, 202);
    } catch (err) {
      if (err instanceof WireError) {
        reply(res, err.status, err.message, err.status === 401);
        return;
      }
      reply(res, 500, `the agent could not take the call: ${(err as Error).message}`);
    }
  }

  /** The executor whose credential the call carries (401 without a known one). */
  private authenticate(req: IncomingMessage): ExecutorRun {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new WireError(401, "Expecting 'Authorization: Bearer <MESOS_EXECUTOR_AUTHENTICATION_TOKEN>'");
    for (const run of this.executors.runs.values()) if (run.state !== 'TERMINATED' && tokenMatches(run, match[1])) return run;
    throw new WireError(401, 'the credential is not that of an executor running on this agent');
  }

  private subscribe(
    req: IncomingMessage,
    res: ServerResponse,
    run: ExecutorRun,
    call: Parameters<Executors['protocol']['subscribe']>[1],
  ): void {
    const type = acceptedType(req.headers.accept);
    if (!type) throw new WireError(406, `Expecting 'Accept' to allow '${PROTOBUF_TYPE}' or '${JSON_TYPE}'`);
    const stream = new HttpEventStream(res, type);
    this.executors.protocol.subscribe(run, call, stream);
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.flushHeaders();
    stream.open();
    req.socket.setKeepAlive(true);
    res.on('close', () => {
      stream.closed = true;
      if (run.stream === stream) run.stream = undefined;
    });
  }
}

/** A subscription's stream: events are held until the 200 is written, then each is its own chunk. */
class HttpEventStream implements EventStream {
  closed = false;
  private held: Buffer[] | undefined = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly type: MediaType,
  ) {}

  open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const b of held) this.res.write(b);
  }

  send(event: Record<string, unknown>): void {
    if (this.closed) return;
    const record = encodeEvent(this.type, event);
    if (this.held) this.held.push(record);
    else this.res.write(record);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.res.end();
  }
}

/** JSON unless the executor accepts only protobuf (Mesos prefers JSON); undefined when it accepts neither. */
function acceptedType(accept: string | undefined): MediaType | undefined {
  if (!accept) return JSON_TYPE;
  const types = accept.split(',').map((t) => t.split(';')[0].trim().toLowerCase());
  if (types.some((t) => t === JSON_TYPE || t === '*/*' || t === 'application/*')) return JSON_TYPE;
  if (types.includes(PROTOBUF_TYPE)) return PROTOBUF_TYPE;
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new WireError(413, `the call is over ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, message?: string, challenge = false): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, {
    ...(message ? { 'Content-Type': 'text/plain; charset=utf-8' } : {}),
    ...(challenge ? { 'WWW-Authenticate': 'Bearer realm="arbiter-executor"' } : {}),
  });
  res.end(message);
}
