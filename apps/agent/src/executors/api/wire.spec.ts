/**
 * The executor API's wire against Mesos's own definitions: the .proto files the third-party
 * `mesos-framework` package ships, through its own protobufjs (v5), share nothing with ours. A
 * round trip through both shows the bytes are Mesos's.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { withoutNulls } from '@arbiter/contracts';
import { mesosExecutorInfo, mesosTaskInfo } from './mesos-info';
import { decodeCall, decodeEvent, encodeEvent, JSON_TYPE, PROTOBUF_TYPE, RecordReader, uuidBytes, uuidOf, WireError } from './wire';

interface V5Message {
  encode(): { toBuffer(): Buffer };
  toRaw(binaryAsBase64: boolean, longsAsStrings: boolean): Record<string, unknown>;
}
interface V5Type {
  new (fields: Record<string, unknown>): V5Message;
  decode(buffer: Buffer): V5Message;
}
const load = createRequire(path.resolve(__dirname, '../../../package.json'));
const builder = (load('mesos-framework') as { Mesos: { getBuilder(): { build(name: string): V5Type } } }).Mesos.getBuilder();
const MesosCall = builder.build('mesos.executor.Call');
const MesosEvent = builder.build('mesos.executor.Event');

const ids = { framework_id: { value: 'fw' }, executor_id: { value: 'e1' } };
const uuid = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const executor = { executorId: 'e1', type: 'CUSTOM' as const, command: { shell: 'run-it' }, resources: [{ name: 'cpus', value: 0.5 }] };
const task = {
  taskId: 't1',
  name: 'one',
  executor,
  resources: [{ name: 'ports', ranges: [[31000, 31001]] as Array<[number, number]> }],
  data: Buffer.from('payload').toString('base64'),
  labels: [{ key: 'k', value: 'v' }],
  killPolicy: { gracePeriodSeconds: 2 },
};

/** Our event's bytes, read by Mesos's definitions. */
function asMesosReads(event: Record<string, unknown>): Record<string, unknown> {
  const [record] = new RecordReader().push(encodeEvent(PROTOBUF_TYPE, event));
  return withoutNulls(MesosEvent.decode(record).toRaw(true, false)) as Record<string, unknown>;
}

describe('executor API wire', () => {
  it("decodes Mesos's protobuf UPDATE into the JSON form, uuid and all", () => {
    const status = { task_id: { value: 't1' }, state: 'TASK_RUNNING', source: 'SOURCE_EXECUTOR', uuid: uuidBytes(uuid), message: 'up' };
    const bytes = new MesosCall({ ...ids, type: 'UPDATE', update: { status } }).encode().toBuffer();
    const call = decodeCall(PROTOBUF_TYPE, bytes);
    expect(call).toMatchObject({ ...ids, type: 'UPDATE', update: { status } });
    expect(uuidOf(call.update?.status.uuid ?? '')).toBe(uuid);
  });

  it("decodes an UPDATE's data, health and labels (Mesos's TaskStatus fields)", () => {
    const extra = { data: Buffer.from('state').toString('base64'), healthy: true, labels: { labels: [{ key: 'phase', value: 'warm' }] } };
    const status = { task_id: { value: 't1' }, state: 'TASK_RUNNING', source: 'SOURCE_EXECUTOR', uuid: uuidBytes(uuid), ...extra };
    const bytes = new MesosCall({ ...ids, type: 'UPDATE', update: { status } }).encode().toBuffer();
    expect(decodeCall(PROTOBUF_TYPE, bytes).update?.status).toMatchObject(extra);
  });

  it("gives the executor the task's checks as Mesos's HealthCheck and CheckInfo, and reads its check_status", () => {
    const checked = {
      ...task,
      healthCheck: {
        probe: { type: 'HTTP' as const, port: 8080, path: '/health', statuses: [200] },
        intervalSeconds: 2,
        consecutiveFailures: 4,
      },
      check: { probe: { type: 'COMMAND' as const, command: { shell: 'test -e ready' } }, delaySeconds: 1 },
    };
    const info = mesosTaskInfo('fw', 'agent-1', checked);
    expect(info).toMatchObject({
      health_check: { type: 'HTTP', http: { port: 8080, path: '/health', statuses: [200] }, interval_seconds: 2, consecutive_failures: 4 },
      check: { type: 'COMMAND', command: { command: { shell: true, value: 'test -e ready' } }, delay_seconds: 1 },
    });
    // Mesos's own definitions read the health check (that package's Mesos predates CheckInfo).
    expect(asMesosReads({ type: 'LAUNCH', launch: { task: info } })).toMatchObject({
      launch: {
        task: { health_check: { http: { port: 8080, path: '/health', statuses: [200] }, interval_seconds: 2, consecutive_failures: 4 } },
      },
    });
    // Both encodings carry the same TaskInfo.
    const [pb] = new RecordReader().push(encodeEvent(PROTOBUF_TYPE, { type: 'LAUNCH', launch: { task: info } }));
    expect(decodeEvent(PROTOBUF_TYPE, pb)).toMatchObject({ launch: { task: { health_check: info.health_check, check: info.check } } });
    const check_status = { type: 'COMMAND', command: { exit_code: 3 } };
    const status = { task_id: { value: 't1' }, state: 'TASK_RUNNING', uuid: uuidBytes(uuid), check_status };
    const body = Buffer.from(JSON.stringify({ ...ids, type: 'UPDATE', update: { status } }));
    expect(decodeCall(JSON_TYPE, body).update?.status.check_status).toEqual(check_status);
  });

  it('encodes LAUNCH_GROUP with the TaskGroupInfo, in protobuf as in JSON', () => {
    const second = { ...task, taskId: 't2', name: 'two', executor: undefined };
    const event = {
      type: 'LAUNCH_GROUP',
      launch_group: { task_group: { tasks: [mesosTaskInfo('fw', 'agent-1', task), mesosTaskInfo('fw', 'agent-1', second)] } },
    };
    const [pb] = new RecordReader().push(encodeEvent(PROTOBUF_TYPE, event));
    const [json] = new RecordReader().push(encodeEvent(JSON_TYPE, event));
    const decoded = decodeEvent(PROTOBUF_TYPE, pb) as { launch_group: { task_group: { tasks: Array<Record<string, unknown>> } } };
    expect(decoded).toMatchObject(decodeEvent(JSON_TYPE, json));
    expect(decoded.launch_group.task_group.tasks.map((t) => t.task_id)).toEqual([{ value: 't1' }, { value: 't2' }]);
  });

  it('encodes events Mesos reads the same: LAUNCH with the TaskInfo, KILL, ACKNOWLEDGED, MESSAGE', () => {
    const launch = asMesosReads({ type: 'LAUNCH', launch: { task: mesosTaskInfo('fw', 'agent-1', task) } });
    expect(launch).toMatchObject({
      type: 'LAUNCH',
      launch: {
        task: {
          name: 'one',
          task_id: { value: 't1' },
          agent_id: { value: 'agent-1' },
          resources: [{ name: 'ports', type: 'RANGES', ranges: { range: [{ begin: 31000, end: 31001 }] } }],
          executor: { executor_id: { value: 'e1' }, framework_id: { value: 'fw' }, command: { shell: true, value: 'run-it' } },
          data: task.data,
          labels: { labels: [{ key: 'k', value: 'v' }] },
        },
      },
    });
    expect(asMesosReads({ type: 'KILL', kill: { task_id: { value: 't1' } } })).toMatchObject({
      type: 'KILL',
      kill: { task_id: { value: 't1' } },
    });
    const acknowledged = asMesosReads({ type: 'ACKNOWLEDGED', acknowledged: { task_id: { value: 't1' }, uuid: uuidBytes(uuid) } });
    expect(acknowledged).toMatchObject({ type: 'ACKNOWLEDGED', acknowledged: { uuid: uuidBytes(uuid) } });
    expect(asMesosReads({ type: 'MESSAGE', message: { data: 'aGk=' } })).toMatchObject({ message: { data: 'aGk=' } });
    const info = mesosExecutorInfo('fw', executor);
    expect(
      asMesosReads({
        type: 'SUBSCRIBED',
        subscribed: { executor_info: info, framework_info: { user: 'u', name: 'fw' }, agent_info: { hostname: 'h' } },
      }),
    ).toMatchObject({
      subscribed: { executor_info: { executor_id: { value: 'e1' } }, agent_info: { hostname: 'h' } },
    });
  });

  it('frames JSON events as RecordIO records', () => {
    const reader = new RecordReader();
    const a = encodeEvent(JSON_TYPE, { type: 'HEARTBEAT' });
    const b = encodeEvent(JSON_TYPE, { type: 'SHUTDOWN' });
    const both = Buffer.concat([a, b]);
    expect(a.toString()).toBe('20\n{"type":"HEARTBEAT"}');
    expect([...reader.push(both.subarray(0, 5)), ...reader.push(both.subarray(5))].map((r) => r.toString())).toEqual([
      '{"type":"HEARTBEAT"}',
      '{"type":"SHUTDOWN"}',
    ]);
  });

  it("refuses what Mesos refuses, with Mesos's status and a message naming the fault", () => {
    const fault = (type: typeof JSON_TYPE | typeof PROTOBUF_TYPE, body: string | Buffer): string => {
      try {
        decodeCall(type, Buffer.from(body));
      } catch (e) {
        if (e instanceof WireError) return `${e.status} ${e.message}`;
      }
      return 'accepted';
    };
    expect(fault(JSON_TYPE, '{')).toMatch(/^400 Failed to parse body into JSON/);
    expect(fault(JSON_TYPE, JSON.stringify({ type: 'SUBSCRIBE' }))).toMatch(/^400 .*executor_id/);
    expect(fault(JSON_TYPE, JSON.stringify({ ...ids, type: 'LAUNCH' }))).toMatch(/^400 .*'type'/);
    expect(fault(PROTOBUF_TYPE, Buffer.from([0xff, 0xff, 0xff]))).toMatch(/^400 Failed to parse body into Call protobuf/);
    // Clients built from protobuf objects send unset fields as null: taken as absent.
    expect(decodeCall(JSON_TYPE, Buffer.from(JSON.stringify({ ...ids, type: 'SUBSCRIBE', subscribe: null })))).toEqual({
      ...ids,
      type: 'SUBSCRIBE',
    });
  });

  it('reads 16-byte UUIDs only', () => {
    expect(uuidOf(uuidBytes(uuid))).toBe(uuid);
    expect(uuidOf(Buffer.from('short').toString('base64'))).toBeUndefined();
  });
});
