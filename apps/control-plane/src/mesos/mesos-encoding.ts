/**
 * The encodings of Mesos's scheduler API, chosen as Mesos chooses them: a call's body by its
 * Content-Type, the answer (the event stream of SUBSCRIBE) by the Accept header, the call's own
 * encoding when Accept allows anything.
 */
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import { ProtocolError } from '../kernel/protocol-error';

export interface MesosEncoding {
  readonly contentType: string;
  /** A call's body as a plain object in Mesos's JSON mapping (to be checked by the Call schema). */
  decodeCall(body: unknown): unknown;
  encodeEvent(event: Record<string, unknown>): Buffer;
}

export const JSON_TYPE = 'application/json';

export const JSON_ENCODING: MesosEncoding = {
  contentType: JSON_TYPE,
  decodeCall(body) {
    if (body === undefined || Buffer.isBuffer(body))
      throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, 'the body must be a JSON object: a Mesos scheduler Call');
    return body;
  },
  encodeEvent: (event) => Buffer.from(JSON.stringify(event)),
};

/** The media type of a header value, without parameters, lower-cased. */
export const mediaType = (header: string | undefined) => (header ?? '').split(';')[0].trim().toLowerCase();

/** The encoding the Accept header asks for among `available`, `fallback` when it allows anything; undefined when none fits. */
export function negotiate(accept: string | undefined, available: MesosEncoding[], fallback: MesosEncoding): MesosEncoding | undefined {
  if (!accept?.trim()) return fallback;
  const wanted = accept.split(',').map((p) => mediaType(p));
  for (const type of wanted) {
    if (type === '*/*' || type === 'application/*') return fallback;
    const found = available.find((e) => e.contentType === type);
    if (found) return found;
  }
  return undefined;
}
