/**
 * An encoder of Mesos's scheduler calls and a decoder of its events that share nothing with the
 * control plane: the Mesos protobuf definitions the third-party `mesos-framework` package ships,
 * through its own protobufjs (v5). A protobuf round trip through both shows the bytes are Mesos's.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { withoutNulls } from '@arbiter/contracts';
import type { MesosCodec, MesosEvent } from './mesos-client';

interface V5Message {
  encode(): { toBuffer(): Buffer };
  toRaw(binaryAsBase64: boolean, longsAsStrings: boolean): Record<string, unknown>;
}
interface V5Type {
  new (fields: Record<string, unknown>): V5Message;
  decode(buffer: Buffer): V5Message;
}
interface V5Builder {
  build(name: string): V5Type;
}

const load = createRequire(path.resolve(__dirname, '../../../../examples/package.json'));
const builder = (load('mesos-framework') as { Mesos: { getBuilder(): V5Builder } }).Mesos.getBuilder();
const Call = builder.build('mesos.scheduler.Call');
const Event = builder.build('mesos.scheduler.Event');

export const mesosFrameworkCodec: MesosCodec = {
  encodeCall: (call) => new Call(call).encode().toBuffer(),
  decodeEvent: (record) => withoutNulls(Event.decode(record).toRaw(true, false)) as MesosEvent,
};
