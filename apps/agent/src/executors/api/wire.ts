/**
 * The executor API's wire: Mesos's v1 executor Call and Event in their JSON form (snake_case
 * fields, enums by name, bytes as base64, ids as `{ value }`) and their protobuf form
 * (mesos-v1-executor.proto), and the RecordIO framing of the event stream. A protobuf call is
 * decoded into the same plain object as its JSON form, so one schema checks both.
 */
import * as path from 'node:path';
import * as protobuf from 'protobufjs';
import { Labels, withoutNulls } from '@arbiter/contracts';
import { z } from 'zod';

export const JSON_TYPE = 'application/json';
export const PROTOBUF_TYPE = 'application/x-protobuf';
export type MediaType = typeof JSON_TYPE | typeof PROTOBUF_TYPE;

/** Mesos's messages that both of Arbiter's Mesos APIs use (libs/contracts/proto). */
const MESOS_V1_PROTO = require.resolve('@arbiter/contracts/proto/mesos-v1.proto');

let types: { call: protobuf.Type; event: protobuf.Type } | undefined;

/** The Call and Event types, loaded once from mesos-v1-executor.proto beside this file and Mesos's shared messages. */
function executorTypes(): { call: protobuf.Type; event: protobuf.Type } {
  if (!types) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) =>
      path.basename(target) === 'mesos-v1.proto' ? MESOS_V1_PROTO : path.join(__dirname, path.basename(target));
    root.loadSync(['mesos-v1-executor.proto'], { keepCase: true });
    root.resolveAll();
    types = { call: root.lookupType('mesos.v1.executor.Call'), event: root.lookupType('mesos.v1.executor.Event') };
  }
  return types;
}

const AS_JSON: protobuf.IConversionOptions = { enums: String, longs: Number, bytes: String };

const IdValue = z.looseObject({ value: z.string().min(1).max(255) });
/** Base64 of at most 1 MiB (framework messages and status data, as the control plane takes them). */
const Data = z.base64().max(1_398_104);

export const WireStatus = z.looseObject({
  task_id: IdValue,
  state: z.string().max(40),
  message: z.string().max(10_000).optional(),
  source: z.string().max(40).optional(),
  reason: z.string().max(100).optional(),
  data: Data.optional(),
  executor_id: IdValue.optional(),
  timestamp: z.number().optional(),
  uuid: z.base64().optional(),
  healthy: z.boolean().optional(),
  /** Mesos's CheckStatusInfo: the result of the executor's general check of the task. */
  check_status: z
    .looseObject({
      type: z.enum(['UNKNOWN', 'COMMAND', 'HTTP', 'TCP']).optional(),
      command: z.looseObject({ exit_code: z.number().int().optional() }).optional(),
      http: z.looseObject({ status_code: z.number().int().optional() }).optional(),
      tcp: z.looseObject({ succeeded: z.boolean().optional() }).optional(),
    })
    .optional(),
  labels: z.looseObject({ labels: Labels.optional() }).optional(),
});
export type WireStatus = z.infer<typeof WireStatus>;

const WireUpdate = z.looseObject({ status: WireStatus });

/** An executor's call, either encoding (Mesos's v1 executor Call). */
export const WireCall = z.looseObject({
  type: z.enum(['UNKNOWN', 'SUBSCRIBE', 'UPDATE', 'MESSAGE', 'HEARTBEAT']),
  executor_id: IdValue,
  framework_id: IdValue,
  subscribe: z
    .looseObject({
      unacknowledged_tasks: z
        .array(z.looseObject({ task_id: IdValue }))
        .max(10_000)
        .optional(),
      unacknowledged_updates: z.array(WireUpdate).max(100_000).optional(),
    })
    .optional(),
  update: WireUpdate.optional(),
  message: z.looseObject({ data: Data }).optional(),
});
export type WireCall = z.infer<typeof WireCall>;

/** A call that could not be read: the status and message Mesos answers with. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The call in `body` (sent as `type`), checked; throws WireError with Mesos's status and a clear message. */
export function decodeCall(type: MediaType, body: Buffer): WireCall {
  let value: unknown;
  if (type === PROTOBUF_TYPE) {
    const { call } = executorTypes();
    try {
      value = call.toObject(call.decode(body), AS_JSON);
    } catch (err) {
      throw new WireError(400, `Failed to parse body into Call protobuf: ${(err as Error).message}`);
    }
  } else {
    try {
      // Clients built from protobuf objects send unset fields as null: absent.
      value = withoutNulls(JSON.parse(body.toString('utf8')));
    } catch (err) {
      throw new WireError(400, `Failed to parse body into JSON: ${(err as Error).message}`);
    }
  }
  const parsed = WireCall.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WireError(400, `Failed to validate Executor::Call: '${issue.path.join('.')}': ${issue.message}`);
  }
  return parsed.data;
}

/** One event as a RecordIO record (`<length>\n<bytes>`) in the stream's encoding. */
export function encodeEvent(type: MediaType, event: Record<string, unknown>): Buffer {
  let bytes: Buffer;
  if (type === PROTOBUF_TYPE) {
    const t = executorTypes().event;
    bytes = Buffer.from(t.encode(t.fromObject(event)).finish());
  } else bytes = Buffer.from(JSON.stringify(event), 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length}\n`, 'utf8'), bytes]);
}

/** The 16 bytes of a Mesos UUID (base64 on the wire) as the text form, or undefined when it is not one. */
export function uuidOf(base64: string): string | undefined {
  const b = Buffer.from(base64, 'base64');
  if (b.length !== 16) return undefined;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The text form of a UUID as Mesos's bytes, base64. */
export function uuidBytes(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64');
}

/** A RecordIO reader, for clients of the stream (tests, tools): records in, as they complete. */
export class RecordReader {
  private buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl < 0) break;
      const length = Number(this.buffer.subarray(0, nl).toString('utf8'));
      if (this.buffer.length < nl + 1 + length) break;
      out.push(this.buffer.subarray(nl + 1, nl + 1 + length));
      this.buffer = this.buffer.subarray(nl + 1 + length);
    }
    return out;
  }
}

/** Decodes an event record (the other side of encodeEvent; for clients and tests). */
export function decodeEvent(type: MediaType, record: Buffer): Record<string, unknown> {
  if (type === PROTOBUF_TYPE) {
    const t = executorTypes().event;
    return t.toObject(t.decode(record), AS_JSON);
  }
  return JSON.parse(record.toString('utf8')) as Record<string, unknown>;
}

/** Encodes a call as protobuf (for clients and tests). */
export function encodeCall(call: Record<string, unknown>): Buffer {
  const t = executorTypes().call;
  return Buffer.from(t.encode(t.fromObject(call)).finish());
}
