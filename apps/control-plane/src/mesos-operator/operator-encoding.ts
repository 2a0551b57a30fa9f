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
  encodeResponse: (response) => Buffer.from(JSON.stringify(response)),
  encodeEvent: (event) => recordIo(JSON.stringify(event)),
};

export const OPERATOR_PROTOBUF: OperatorEncoding = {
  contentType: PROTOBUF_TYPE,
  decodeCall(body) {
    const { call } = masterTypes();
    return call.toObject(decodeMessage(call, body, 'mesos.v1.master.Call'), AS_JSON);
  },
  encodeResponse(response) {
    const { response: type } = masterTypes();
    return Buffer.from(type.encode(type.fromObject(response)).finish());
  },
  encodeEvent(event) {
    const { event: type } = masterTypes();
    return recordIo(Buffer.from(type.encode(type.fromObject(event)).finish()));
  },
};

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
