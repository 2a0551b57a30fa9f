/**
 * The application/x-protobuf encoding of Mesos's scheduler API: calls decoded and events encoded
 * with protobufjs from the schema in libs/contracts/proto/mesos-v1.proto and mesos-v1-scheduler.proto (Mesos's
 * messages and field numbers). A decoded call becomes the same plain object as its JSON form
 * (snake_case fields, enums by name, bytes as base64, int64 as numbers), so one schema checks
 * both encodings.
 */
import * as path from 'node:path';
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import * as protobuf from 'protobufjs';
import { ProtocolError } from '../kernel/protocol-error';
import type { MesosEncoding } from './mesos-encoding';

export const PROTOBUF_TYPE = 'application/x-protobuf';

/** Mesos's messages that both of Arbiter's Mesos APIs use (libs/contracts/proto). */
const MESOS_V1_PROTO = require.resolve('@arbiter/contracts/proto/mesos-v1.proto');

let types: { call: protobuf.Type; event: protobuf.Type } | undefined;

/** The Call and Event types, loaded once from mesos-v1-scheduler.proto beside this file and Mesos's shared messages. */
export function mesosTypes(): { call: protobuf.Type; event: protobuf.Type } {
  if (!types) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) =>
      path.basename(target) === 'mesos-v1.proto' ? MESOS_V1_PROTO : path.join(__dirname, path.basename(target));
    root.loadSync(['mesos-v1-scheduler.proto'], { keepCase: true });
    root.resolveAll();
    types = { call: root.lookupType('mesos.v1.scheduler.Call'), event: root.lookupType('mesos.v1.scheduler.Event') };
  }
  return types;
}

const AS_JSON: protobuf.IConversionOptions = { enums: String, longs: Number, bytes: String };

/** A request body as a message of `type` (named `name` in errors): INVALID_MESSAGE when it is not one. */
export function decodeMessage(type: protobuf.Type, body: unknown, name: string): protobuf.Message {
  if (!Buffer.isBuffer(body)) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `the body must be a protobuf-encoded ${name}`);
  try {
    return type.decode(body);
  } catch (err) {
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      `the body is not a ${name}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export const PROTOBUF_ENCODING: MesosEncoding = {
  contentType: PROTOBUF_TYPE,
  decodeCall(body) {
    const { call } = mesosTypes();
    const message = decodeMessage(call, body, 'mesos.v1.scheduler.Call');
    // Decoding skips fields it does not know: a call that re-encodes shorter held some.
    if (call.encode(message).finish().length !== (body as Buffer).length)
      throw new ProtocolError(
        PROTOCOL_ERRORS.UNSUPPORTED,
        'the call holds protobuf fields Arbiter does not know (docs/mesos-compat.md lists those it reads); send it as JSON to see which',
      );
    return call.toObject(message, AS_JSON);
  },
  encodeEvent(event) {
    const type = mesosTypes().event;
    return Buffer.from(type.encode(type.fromObject(event)).finish());
  },
};
