import { MesosCall } from '@arbiter/contracts';
import { acceptOf, fromMesosResource, toMesosResource } from './mesos-codec';
import { mesosTypes, PROTOBUF_ENCODING } from './mesos-protobuf';

const volume = (mode?: 'RW' | 'RO') => ({
  name: 'disk',
  type: 'SCALAR',
  scalar: { value: 512 },
  reservations: [{ type: 'DYNAMIC', role: 'db' }],
  disk: { persistence: { id: 'data-1', principal: 'db-fw' }, volume: { container_path: 'data', ...(mode ? { mode } : {}) } },
});
const accept = (operation: Record<string, unknown>) => ({
  framework_id: { value: 'f1' },
  type: 'ACCEPT',
  accept: { offer_ids: [{ value: 'o1' }], operations: [operation] },
});

describe("Mesos's persistent volumes", () => {
  it('reads CREATE and DESTROY, in JSON and in protobuf', () => {
    const create = accept({ type: 'CREATE', create: { volumes: [volume('RO')] } });
    expect(acceptOf(MesosCall.parse(create)).accept.operations).toEqual([
      { type: 'CREATE', volumes: [{ id: 'data-1', disk: 512, containerPath: 'data', mode: 'RO' }] },
    ]);
    const { call } = mesosTypes();
    const body = Buffer.from(call.encode(call.fromObject(create)).finish());
    expect(acceptOf(MesosCall.parse(PROTOBUF_ENCODING.decodeCall(body))).accept.operations).toEqual([
      { type: 'CREATE', volumes: [{ id: 'data-1', disk: 512, containerPath: 'data', mode: 'RO' }] },
    ]);
    const destroy = accept({ type: 'DESTROY', destroy: { volumes: [volume()] } });
    expect(acceptOf(MesosCall.parse(destroy)).accept.operations).toEqual([{ type: 'DESTROY', volumes: [{ id: 'data-1' }] }]);
  });

  it('reads the operation id of CREATE and DESTROY and a shared volume (Resource.shared), in JSON and in protobuf', () => {
    const create = accept({ type: 'CREATE', id: { value: 'op-1' }, create: { volumes: [{ ...volume(), shared: {} }] } });
    const { call } = mesosTypes();
    const body = Buffer.from(call.encode(call.fromObject(create)).finish());
    for (const parsed of [MesosCall.parse(create), MesosCall.parse(PROTOBUF_ENCODING.decodeCall(body))])
      expect(acceptOf(parsed).accept.operations).toEqual([
        { type: 'CREATE', id: 'op-1', volumes: [{ id: 'data-1', disk: 512, containerPath: 'data', mode: 'RW', shared: true }] },
      ]);
    const destroy = accept({ type: 'DESTROY', id: { value: 'op-2' }, destroy: { volumes: [volume()] } });
    expect(acceptOf(MesosCall.parse(destroy)).accept.operations).toEqual([{ type: 'DESTROY', id: 'op-2', volumes: [{ id: 'data-1' }] }]);
  });

  it('refuses a CREATE without a persistence id or container path, and BLOCK disks', () => {
    const bare = { ...volume(), disk: { volume: { container_path: 'data' } } };
    expect(() => acceptOf(MesosCall.parse(accept({ type: 'CREATE', create: { volumes: [bare] } })))).toThrow(/disk.persistence.id/);
    const noPath = { ...volume(), disk: { persistence: { id: 'x' } } };
    expect(() => acceptOf(MesosCall.parse(accept({ type: 'CREATE', create: { volumes: [noPath] } })))).toThrow();
    const block = { name: 'disk', type: 'SCALAR', scalar: { value: 1 }, disk: { source: { type: 'BLOCK' } } };
    expect(() =>
      fromMesosResource(
        MesosCall.parse(accept({ type: 'CREATE', create: { volumes: [block] } })).accept?.operations?.[0].create?.volumes?.[0] as never,
        'r',
      ),
    ).toThrow(/BLOCK/);
  });

  it("a task's volume resource is the volume piece; an offered one says its persistence id, principal, path and mode", () => {
    expect(fromMesosResource(volume() as never, 'task')).toEqual({ name: 'disk', value: 512, reservation: 'db', volume: 'data-1' });
    expect(
      toMesosResource({ name: 'disk', value: 512, reservation: 'db', volume: 'data-1' }, 'db', {
        containerPath: 'data',
        mode: 'RO',
        principal: 'p',
      }),
    ).toMatchObject({
      name: 'disk',
      scalar: { value: 512 },
      disk: { persistence: { id: 'data-1', principal: 'p' }, volume: { container_path: 'data', mode: 'RO' } },
    });
  });

  it('reads and writes PATH and MOUNT disk sources; a CREATE on a MOUNT disk names it', () => {
    const mount = { name: 'disk', type: 'SCALAR', scalar: { value: 100 }, disk: { source: { type: 'MOUNT', mount: { root: '/mnt/d1' } } } };
    expect(fromMesosResource(mount as never, 'r')).toEqual({ name: 'disk', value: 100, source: { type: 'MOUNT', root: '/mnt/d1' } });
    expect(toMesosResource({ name: 'disk', value: 100, source: { type: 'PATH', root: '/srv/d2' } })).toMatchObject({
      disk: { source: { type: 'PATH', path: { root: '/srv/d2' } } },
    });
    const onMount = { ...volume(), disk: { ...volume().disk, source: mount.disk.source } };
    const json = accept({ type: 'CREATE', create: { volumes: [onMount] } });
    const { call } = mesosTypes();
    const decoded = MesosCall.parse(PROTOBUF_ENCODING.decodeCall(Buffer.from(call.encode(call.fromObject(json)).finish())));
    expect(acceptOf(decoded).accept.operations).toEqual([
      {
        type: 'CREATE',
        volumes: [{ id: 'data-1', disk: 512, containerPath: 'data', mode: 'RW', source: { type: 'MOUNT', root: '/mnt/d1' } }],
      },
    ]);
  });
});
