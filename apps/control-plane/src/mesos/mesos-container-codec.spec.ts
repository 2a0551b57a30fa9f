import { type MesosCall, MesosCall as MesosCallSchema, withoutNulls } from '@arbiter/contracts';
import { acceptOf } from './mesos-codec';
import { toMesosContainer } from './mesos-container-codec';
import { mesosTypes, PROTOBUF_ENCODING } from './mesos-protobuf';

/** An ACCEPT launching one task with this container (and, when given, this executor instead of a command). */
const acceptWith = (container: Record<string, unknown>, executor?: Record<string, unknown>) => ({
  type: 'ACCEPT',
  framework_id: { value: 'fw' },
  accept: {
    offer_ids: [{ value: 'o1' }],
    operations: [
      {
        type: 'LAUNCH',
        launch: {
          task_infos: [
            {
              name: 't',
              task_id: { value: 't' },
              agent_id: { value: 'a' },
              resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
              ...(executor ? { executor: { ...executor, container } } : { command: { value: 'echo hi' }, container }),
            },
          ],
        },
      },
    ],
  },
});

/** The call as the Mesos API reads it from JSON, and from protobuf (encoded with Mesos's field numbers). */
const json = (call: Record<string, unknown>): MesosCall => MesosCallSchema.parse(withoutNulls(call));
/** Fields the proto declares as `bytes` (refused by name): their value goes as opaque bytes, as any message would. */
const OPAQUE = new Set(['appc', 'credential', 'config', 'capability_info', 'rlimit_info', 'tty_info', 'secret', 'network_infos']);
const opaque = (v: unknown): unknown => Buffer.from(JSON.stringify(v)).toString('base64');
function asProto(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asProto);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, OPAQUE.has(k) ? (Array.isArray(x) ? x.map(opaque) : opaque(x)) : asProto(x)]),
  );
}
const protobuf = (call: Record<string, unknown>): MesosCall => {
  const { call: type } = mesosTypes();
  const bytes = Buffer.from(type.encode(type.fromObject(asProto(call) as Record<string, unknown>)).finish());
  return json(PROTOBUF_ENCODING.decodeCall(bytes) as Record<string, unknown>);
};
/** The code and message of the error `f` throws. */
function refusal(f: () => unknown): { code?: string; message: string } {
  try {
    f();
  } catch (err) {
    return { code: (err as { code?: string }).code, message: err instanceof Error ? err.message : String(err) };
  }
  throw new Error('nothing was refused');
}
const taskContainer = (call: MesosCall) => {
  const op = acceptOf(call).accept.operations[0];
  return op.type === 'LAUNCH' ? op.tasks[0].container : undefined;
};

const SPARK = { type: 'MESOS' };
const MESOS_IMAGE = {
  type: 'MESOS',
  mesos: { image: { type: 'DOCKER', docker: { name: 'registry.local:5000/spark:3.5' }, cached: false } },
  volumes: [
    { mode: 'RW', container_path: '/data', source: { type: 'HOST_PATH', host_path: { path: '/srv/data' } } },
    { mode: 'RO', container_path: 'shared', source: { type: 'SANDBOX_PATH', sandbox_path: { type: 'PARENT', path: 'shared' } } },
  ],
  hostname: 'worker',
};
const DOCKER = {
  type: 'DOCKER',
  docker: {
    image: 'nginx:1.25',
    network: 'BRIDGE',
    port_mappings: [
      { host_port: 31000, container_port: 80, protocol: 'tcp' },
      { host_port: 31001, container_port: 53, protocol: 'UDP' },
    ],
    privileged: false,
    force_pull_image: true,
  },
  // Mesos's deprecated form: an absolute host_path is the host's, a relative one the sandbox's.
  volumes: [
    { mode: 'RO', container_path: '/etc/app', host_path: '/etc/app' },
    { mode: 'RW', container_path: '/cache', host_path: 'cache' },
  ],
};

describe.each([
  ['JSON', json],
  ['protobuf', protobuf],
])("Mesos's ContainerInfo in Arbiter's terms (%s)", (_encoding, read) => {
  it("takes Spark's ContainerInfo{type: MESOS} without an image as a plain isolated process", () => {
    expect(taskContainer(read(acceptWith(SPARK)))).toEqual({ type: 'MESOS' });
  });

  it('takes a MESOS container with a Docker image (cached: false is a forced pull), host-path and sandbox-path volumes, a hostname', () => {
    expect(taskContainer(read(acceptWith(MESOS_IMAGE)))).toEqual({
      type: 'MESOS',
      image: { name: 'registry.local:5000/spark:3.5', forcePull: true },
      volumes: [
        { containerPath: '/data', mode: 'RW', source: { type: 'HOST_PATH', path: '/srv/data' } },
        { containerPath: 'shared', mode: 'RO', source: { type: 'SANDBOX_PATH', sandboxType: 'PARENT', path: 'shared' } },
      ],
      hostname: 'worker',
    });
  });

  it("takes a DOCKER container with port mappings, force_pull_image and Mesos's deprecated host_path volumes", () => {
    expect(taskContainer(read(acceptWith(DOCKER)))).toEqual({
      type: 'DOCKER',
      image: { name: 'nginx:1.25', forcePull: true },
      portMappings: [
        { hostPort: 31000, containerPort: 80, protocol: 'tcp' },
        { hostPort: 31001, containerPort: 53, protocol: 'udp' },
      ],
      volumes: [
        { containerPath: '/etc/app', mode: 'RO', source: { type: 'HOST_PATH', path: '/etc/app' } },
        { containerPath: '/cache', mode: 'RW', source: { type: 'SANDBOX_PATH', sandboxType: 'SELF', path: 'cache' } },
      ],
    });
  });

  it("takes an executor's container", () => {
    const call = read(acceptWith(MESOS_IMAGE, { executor_id: { value: 'e' }, command: { value: './executor' } }));
    const op = acceptOf(call).accept.operations[0];
    expect(op.type === 'LAUNCH' && op.tasks[0].executor?.container).toMatchObject({
      type: 'MESOS',
      image: { name: 'registry.local:5000/spark:3.5' },
    });
  });

  it("takes linux_info's share_pid_namespace (for a task of a group: its executor's PID namespace), and an empty linux_info", () => {
    const container = { ...SPARK, mesos: MESOS_IMAGE.mesos, linux_info: { share_pid_namespace: true } };
    expect(taskContainer(read(acceptWith(container)))).toMatchObject({ linux: { sharePidNamespace: true } });
    expect(taskContainer(read(acceptWith({ ...SPARK, linux_info: {} })))).toEqual({ type: 'MESOS' });
  });

  it('accepts what frameworks always send and changes nothing: HOST networking, no privileges, empty lists', () => {
    const call = read(
      acceptWith({ type: 'DOCKER', docker: { image: 'busybox', network: 'HOST', privileged: false, parameters: [] }, network_infos: [] }),
    );
    expect(taskContainer(call)).toEqual({ type: 'DOCKER', image: { name: 'busybox' } });
  });

  it.each([
    [
      { type: 'MESOS', mesos: { image: { type: 'APPC', appc: { name: 'coreos.com/etcd' } } } },
      /container.mesos.image of type APPC is not supported/,
    ],
    [{ type: 'MESOS', network_infos: [{ name: 'calico' }] }, /container.network_infos is not supported/],
    [{ type: 'MESOS', linux_info: { capability_info: { capabilities: ['NET_ADMIN'] } } }, /container.linux_info is not supported/],
    [{ type: 'MESOS', rlimit_info: { rlimits: [{ type: 'RLMT_NOFILE', hard: 10, soft: 10 }] } }, /container.rlimit_info is not supported/],
    [{ type: 'MESOS', tty_info: { window_size: { rows: 24, columns: 80 } } }, /container.tty_info is not supported/],
    [{ type: 'DOCKER', docker: { image: 'busybox', network: 'USER' } }, /container.docker.network USER is not supported/],
    [{ type: 'DOCKER', docker: { image: 'busybox', privileged: true } }, /container.docker.privileged is not supported/],
    [
      { type: 'DOCKER', docker: { image: 'busybox', parameters: [{ key: 'cap-add', value: 'ALL' }] } },
      /container.docker.parameters is not supported/,
    ],
    [
      { type: 'MESOS', volumes: [{ mode: 'RW', container_path: '/s', source: { type: 'SECRET', secret: { type: 'REFERENCE' } } }] },
      /container.volumes\[0\].source.secret is not supported/,
    ],
    [
      { type: 'MESOS', mesos: { image: { type: 'DOCKER', docker: { name: 'busybox', config: { type: 'VALUE' } } } } },
      /credential and config is not supported/,
    ],
  ])('refuses what Arbiter cannot honour by name (%#)', (container, message) => {
    const r = refusal(() => taskContainer(read(acceptWith(container))));
    expect(r.code).toBe('UNSUPPORTED');
    expect(r.message).toMatch(message);
    expect(r.message).toContain('ACCEPT operation 0 (LAUNCH) task 0');
  });

  it.each([
    [{ type: 'DOCKER' }, /docker is required/],
    [{ type: 'MESOS', docker: { image: 'busybox' } }, /docker is for containers of type DOCKER/],
    [{ type: 'MESOS', volumes: [{ mode: 'RW', container_path: '/x' }] }, /a volume needs a source or a host_path/],
    [
      { type: 'DOCKER', docker: { image: 'busybox', port_mappings: [{ host_port: 1, container_port: 2, protocol: 'sctp' }] } },
      /tcp or udp/,
    ],
    [{ type: 'DOCKER', docker: { image: 'Not an image!' } }, /container.image.name/],
  ])('refuses an invalid container as INVALID_MESSAGE (%#)', (container, message) => {
    const r = refusal(() => taskContainer(read(acceptWith(container))));
    expect(r.code).toBe('INVALID_MESSAGE');
    expect(r.message).toMatch(message);
  });
});

it("writes a ContainerSpec back in Mesos's shape for /master/state", () => {
  expect(
    toMesosContainer({
      type: 'DOCKER',
      image: { name: 'nginx', forcePull: true },
      portMappings: [{ hostPort: 31000, containerPort: 80, protocol: 'tcp' }],
      volumes: [{ containerPath: 'c', mode: 'RW', source: { type: 'SANDBOX_PATH', sandboxType: 'SELF', path: 'c' } }],
    }),
  ).toEqual({
    type: 'DOCKER',
    volumes: [{ mode: 'RW', container_path: 'c', source: { type: 'SANDBOX_PATH', sandbox_path: { type: 'SELF', path: 'c' } } }],
    docker: {
      image: 'nginx',
      network: 'BRIDGE',
      port_mappings: [{ host_port: 31000, container_port: 80, protocol: 'tcp' }],
      force_pull_image: true,
    },
  });
  expect(toMesosContainer({ type: 'MESOS', image: { name: 'busybox' } })).toEqual({
    type: 'MESOS',
    mesos: { image: { type: 'DOCKER', docker: { name: 'busybox' }, cached: true } },
  });
});
