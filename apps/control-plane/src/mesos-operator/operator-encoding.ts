/**
 * The encodings of Mesos's operator API, as Mesos chooses them: a call's body by its
 * Content-Type, the answer by the Accept header (the call's own encoding when Accept allows
 * anything). Answers are built once as plain objects in Mesos's JSON mapping (snake_case
 * fields, enums by name); the protobuf encoding turns that object into a mesos.v1.master
 * Response or Event (mesos-v1-master.proto beside this file), and a protobuf call into the same
 * plain object its JSON form is, so one check reads both.
 */
import * as path from 'node:path';
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import * as protobuf from 'protobufjs';
import { ProtocolError } from '../kernel/protocol-error';
import { recordIo } from '../mesos/mesos-events';
import { JSON_TYPE, mediaType } from '../mesos/mesos-encoding';
import { decodeMessage, PROTOBUF_TYPE } from '../mesos/mesos-protobuf';
import { FragmentList } from './operator-fragments';

const MESOS_V1_PROTO = require.resolve('@arbiter/contracts/proto/mesos-v1.proto');

interface MasterTypes {
  call: protobuf.Type;
  response: protobuf.Type;
  event: protobuf.Type;
}

let types: MasterTypes | undefined;

/** The operator API's Call, Response and Event types, loaded once. */
export function masterTypes(): MasterTypes {
  if (!types) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) =>
      path.basename(target) === 'mesos-v1.proto' ? MESOS_V1_PROTO : path.join(__dirname, path.basename(target));
    root.loadSync(['mesos-v1-master.proto'], { keepCase: true });
    root.resolveAll();
    types = {
      call: root.lookupType('mesos.v1.master.Call'),
      response: root.lookupType('mesos.v1.master.Response'),
      event: root.lookupType('mesos.v1.master.Event'),
    };
  }
  return types;
}

const AS_JSON: protobuf.IConversionOptions = { enums: String, longs: Number, bytes: String };

export interface OperatorEncoding {
  readonly contentType: string;
  decodeCall(body: unknown): Record<string, unknown>;
  encodeResponse(response: Record<string, unknown>): Buffer;
  /** One event as a RecordIO record. */
  encodeEvent(event: Record<string, unknown>): Buffer;
}

export const OPERATOR_JSON: OperatorEncoding = {
  contentType: JSON_TYPE,
  decodeCall(body) {
    if (body === undefined || Buffer.isBuffer(body) || typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ProtocolError(
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        'the body must be a JSON object: a Mesos operator Call (mesos.v1.master.Call)',
      );
    return body as Record<string, unknown>;
  },
  encodeResponse: (response) => Buffer.from(jsonOf(response)),
  encodeEvent: (event) => recordIo(jsonOf(event)),
};

export const OPERATOR_PROTOBUF: OperatorEncoding = {
  contentType: PROTOBUF_TYPE,
  decodeCall(body) {
    const { call } = masterTypes();
    return call.toObject(decodeMessage(call, body, 'mesos.v1.master.Call'), AS_JSON);
  },
  encodeResponse(response) {
    return protoOf(masterTypes().response, response);
  },
  encodeEvent(event) {
    return recordIo(protoOf(masterTypes().event, event));
  },
};

/** Marks where a FragmentList goes in the JSON of the rest of an answer (control characters, escaped by JSON.stringify). */
const SLOT = /"\\u0000(\d+)\\u0000"/g;

/** JSON.stringify's text of an answer, its FragmentLists written from their fragments' kept JSON. */
export function jsonOf(value: unknown): string {
  const lists: FragmentList[] = [];
  // The holder's own value (what JSON.stringify hands the replacer may be what a toJSON made of it).
  const skeleton = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const own = this[key];
    return own instanceof FragmentList ? `\u0000${lists.push(own) - 1}\u0000` : v;
  });
  if (!lists.length) return skeleton;
  return skeleton.replace(SLOT, (_m, i: string) => `[${lists[Number(i)].items.map((f) => f.json()).join(',')}]`);
}

const holdsFragments = (v: unknown): boolean =>
  v instanceof FragmentList || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).some(holdsFragments));

/**
 * The protobuf encoding of an answer as `type`. Fields without fragments are encoded as usual;
 * a FragmentList is written as its fragments' kept bytes, each a field of the repeated message
 * (a message's fields may come in any order, and a repeated field's elements one by one).
 */
export function protoOf(type: protobuf.Type, value: Record<string, unknown>): Buffer {
  if (!holdsFragments(value)) return Buffer.from(type.encode(type.fromObject(value)).finish());
  const rest: Record<string, unknown> = {};
  const w = protobuf.Writer.create();
  for (const [key, v] of Object.entries(value)) {
    const field = type.fields[key] as protobuf.Field | undefined;
    if (!field || !holdsFragments(v)) {
      rest[key] = v;
      continue;
    }
    const inner = field.resolvedType as protobuf.Type;
    if (v instanceof FragmentList) for (const f of v.items) w.uint32((field.id << 3) | 2).bytes(f.proto(inner));
    else w.uint32((field.id << 3) | 2).bytes(protoOf(inner, v as Record<string, unknown>));
  }
  return Buffer.concat([type.encode(type.fromObject(rest)).finish(), w.finish()]);
}

export const OPERATOR_ENCODINGS: OperatorEncoding[] = [OPERATOR_JSON, OPERATOR_PROTOBUF];

export const encodingOf = (contentType: string | undefined) => OPERATOR_ENCODINGS.find((e) => e.contentType === mediaType(contentType));

/** The encoding the Accept header asks for, `fallback` when it allows anything; undefined when none fits. */
export function negotiateAnswer(accept: string | undefined, fallback: OperatorEncoding): OperatorEncoding | undefined {
  if (!accept?.trim()) return fallback;
  for (const part of accept.split(',')) {
    const type = mediaType(part);
    if (type === '*/*' || type === 'application/*') return fallback;
    const found = OPERATOR_ENCODINGS.find((e) => e.contentType === type);
    if (found) return found;
  }
  return undefined;
}
