/**
 * Mesos's v1 operator API spoken by hand, as Mesos's docs do with curl: a Call POSTed to
 * /api/v1 (or /master/api/v1) in JSON or protobuf, the Response read back in the same encoding;
 * SUBSCRIBE reads the RecordIO event stream. Protobuf goes through protobufjs with Mesos 1.11's
 * field names and numbers (the control plane's mesos-v1-master.proto).
 */
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import type * as protobuf from 'protobufjs';
import { masterTypes } from '../../src/mesos-operator/operator-encoding';
import { RecordIoReader } from './mesos-client';

export type Encoding = 'json' | 'protobuf';
export const ENCODINGS: Encoding[] = ['json', 'protobuf'];

const TYPE: Record<Encoding, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };
const AS_JSON: protobuf.IConversionOptions = { enums: String, longs: Number, bytes: String, defaults: false };

export interface OperatorAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The Response (decoded from protobuf when it was), or the error body `{ code, message }`. */
  body: Record<string, unknown>;
}

export interface OperatorOptions {
  auth?: string | null;
  encoding?: Encoding;
  path?: string;
  /** Raw body instead of the call (malformed input). */
  raw?: Buffer | string;
  headers?: Record<string, string>;
}

function encodeCall(call: Record<string, unknown>, encoding: Encoding): Buffer {
  if (encoding === 'json') return Buffer.from(JSON.stringify(call));
  const { call: type } = masterTypes();
  return Buffer.from(type.encode(type.fromObject(call)).finish());
}

function decode(buf: Buffer, contentType: string | undefined, kind: 'response' | 'event'): Record<string, unknown> {
  if (!buf.length) return {};
  if (contentType?.startsWith(TYPE.protobuf)) {
    const type = masterTypes()[kind];
    return type.toObject(type.decode(buf), AS_JSON);
  }
  return JSON.parse(buf.toString()) as Record<string, unknown>;
}

function request(url: string, body: Buffer, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

const headersOf = (o: OperatorOptions, encoding: Encoding) => ({
  'content-type': TYPE[encoding],
  accept: TYPE[encoding],
  ...(o.auth ? { authorization: o.auth } : {}),
  ...o.headers,
});

/** One call, answered in full. */
export async function operatorCall(base: string, call: Record<string, unknown>, o: OperatorOptions = {}): Promise<OperatorAnswer> {
  const encoding = o.encoding ?? 'json';
  const body = o.raw !== undefined ? Buffer.from(o.raw) : encodeCall(call, encoding);
  const res = await request(`${base}${o.path ?? '/api/v1'}`, body, headersOf(o, encoding));
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const received = Buffer.concat(chunks);
  const buf = res.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(received) : received;
  const isError = (res.statusCode ?? 0) >= 400;
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    body: isError ? (JSON.parse(buf.toString() || '{}') as Record<string, unknown>) : decode(buf, res.headers['content-type'], 'response'),
  };
}

/** A SUBSCRIBE stream: its events as they arrive. */
export class OperatorSubscription {
  readonly events: Array<Record<string, unknown> & { type: string }> = [];
  status = 0;
  /** The master ended the stream (or the connection closed). */
  ended = false;
  private res?: http.IncomingMessage;

  async open(base: string, o: OperatorOptions = {}): Promise<number> {
    const encoding = o.encoding ?? 'json';
    const res = await request(`${base}/api/v1`, encodeCall({ type: 'SUBSCRIBE' }, encoding), headersOf(o, encoding));
    this.res = res;
    this.status = res.statusCode ?? 0;
    const contentType = res.headers['content-type'];
    const reader = new RecordIoReader((record) => this.events.push(decode(record, contentType, 'event') as { type: string }));
    res.on('data', (chunk: Buffer) => (this.status === 200 ? reader.push(chunk) : undefined));
    res.on('error', () => undefined);
    res.on('close', () => (this.ended = true));
    return this.status;
  }

  of(type: string): Array<Record<string, unknown>> {
    return this.events.filter((e) => e.type === type);
  }

  close(): void {
    this.res?.destroy();
  }
}
