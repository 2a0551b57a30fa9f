/**
 * Mesos's v1 scheduler HTTP API spoken by hand, as the Mesos docs do with curl: SUBSCRIBE opens
 * the RecordIO event stream, every other call is a POST with the Mesos-Stream-Id header. JSON by
 * default; `encoding: 'protobuf'` sends and reads protobuf records through `codec`.
 */
import * as http from 'node:http';

export type MesosEvent = Record<string, unknown> & { type: string };

export interface MesosCodec {
  encodeCall(call: Record<string, unknown>): Buffer;
  decodeEvent(record: Buffer): MesosEvent;
}

export interface CallAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Splits a RecordIO byte stream into records (`<length>\n<bytes>`), across chunks. */
export class RecordIoReader {
  private buffer = Buffer.alloc(0);
  constructor(private readonly onRecord: (record: Buffer) => void) {}
  push(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const nl = this.buffer.indexOf(10);
      if (nl < 0) return;
      const length = Number(this.buffer.subarray(0, nl).toString());
      if (this.buffer.length < nl + 1 + length) return;
      this.onRecord(this.buffer.subarray(nl + 1, nl + 1 + length));
      this.buffer = this.buffer.subarray(nl + 1 + length);
    }
  }
}

/** A TaskInfo running `shell` on `offer`'s agent with half a CPU and 64 MB; `extra` adds to (or overrides) its fields. */
export function shellTaskInfo(offer: { agent_id: { value: string } }, id: string, shell: string, extra: Record<string, unknown> = {}) {
  return {
    name: id,
    task_id: { value: id },
    agent_id: offer.agent_id,
    resources: [
      { name: 'cpus', type: 'SCALAR', scalar: { value: 0.5 } },
      { name: 'mem', type: 'SCALAR', scalar: { value: 64 } },
    ],
    command: { value: shell },
    ...extra,
  };
}

export class MesosClient {
  readonly events: MesosEvent[] = [];
  /** Called with every event as it arrives. */
  onEvent?: (event: MesosEvent) => void;
  streamId?: string;
  frameworkId?: string;
  subscribeStatus?: number;
  /** The error body when SUBSCRIBE was refused. */
  subscribeBody?: string;
  private req?: http.ClientRequest;
  private res?: http.IncomingMessage;
  private closed = false;
  ended = false;

  constructor(
    readonly url: string,
    private readonly authorization: string | null,
    private readonly codec?: MesosCodec,
    /** Where the scheduler API is served (Mesos's master answers at /master/api/v1/scheduler too). */
    private readonly path = '/api/v1/scheduler',
  ) {}

  private get contentType(): string {
    return this.codec ? 'application/x-protobuf' : 'application/json';
  }

  private encode(call: Record<string, unknown>): Buffer {
    return this.codec ? this.codec.encodeCall(call) : Buffer.from(JSON.stringify(call));
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'content-type': this.contentType,
      accept: this.contentType,
      ...(this.authorization ? { authorization: this.authorization } : {}),
      ...extra,
    };
  }

  /** Subscribes; resolves with the HTTP status once the answer's head arrives (200: events follow in `events`). */
  subscribe(frameworkInfo: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<number> {
    const body = this.encode({
      type: 'SUBSCRIBE',
      ...(frameworkInfo.id ? { framework_id: frameworkInfo.id } : {}),
      subscribe: { framework_info: frameworkInfo, ...extra },
    });
    return new Promise((resolve, reject) => {
      const req = http.request(`${this.url}${this.path}`, { method: 'POST', headers: this.headers() }, (res) => {
        this.subscribeStatus = res.statusCode;
        if (res.statusCode !== 200) {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            this.subscribeBody = text;
            resolve(res.statusCode ?? 0);
          });
          return;
        }
        this.streamId = String(res.headers['mesos-stream-id']);
        this.res = res;
        const reader = new RecordIoReader((record) => {
          const event = this.codec ? this.codec.decodeEvent(record) : (JSON.parse(record.toString()) as MesosEvent);
          if (event.type === 'SUBSCRIBED')
            this.frameworkId = ((event.subscribed as Record<string, unknown>).framework_id as { value: string }).value;
          this.events.push(event);
          this.onEvent?.(event);
        });
        res.on('data', (c: Buffer) => reader.push(c));
        res.on('end', () => (this.ended = true));
        res.on('error', () => (this.ended = true));
        resolve(200);
      });
      req.on('error', (e) => (this.closed ? resolve(0) : reject(e)));
      req.end(body);
      this.req = req;
    });
  }

  /** Sends a call on the stream (framework_id and Mesos-Stream-Id filled in). */
  call(type: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<CallAnswer> {
    const call = { framework_id: { value: this.frameworkId }, type, ...body };
    return this.raw(this.encode(call), { ...(this.streamId ? { 'mesos-stream-id': this.streamId } : {}), ...headers });
  }

  /** ACCEPTs the offers with one LAUNCH of `taskInfos`; `accept` adds to the ACCEPT (its filters, say). */
  launch(offerIds: unknown[], taskInfos: unknown[], accept: Record<string, unknown> = {}): Promise<CallAnswer> {
    return this.call('ACCEPT', {
      accept: { offer_ids: offerIds, operations: [{ type: 'LAUNCH', launch: { task_infos: taskInfos } }], ...accept },
    });
  }

  /** POSTs bytes as they are. */
  raw(body: Buffer | string, headers: Record<string, string> = {}): Promise<CallAnswer> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${this.url}${this.path}`, { method: 'POST', headers: this.headers(headers) }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  of<T = Record<string, unknown>>(type: string): T[] {
    return this.events.filter((e) => e.type === type).map((e) => e[type.toLowerCase()] as T);
  }

  /** Stops reading the event stream (a framework that hangs): what the master sends piles up. */
  stopReading(): void {
    this.res?.pause();
  }

  close(): void {
    this.closed = true;
    this.req?.destroy();
  }
}

/** `Authorization: Basic` for a principal and its token. */
export const basic = (principal: string, secret: string) => `Basic ${Buffer.from(`${principal}:${secret}`).toString('base64')}`;
