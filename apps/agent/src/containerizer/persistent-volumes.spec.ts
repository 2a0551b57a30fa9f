import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Reply } from '@arbiter/contracts';
import { PersistentVolumes } from './persistent-volumes';
import { VolumeError } from './runtime/volumes';

describe('PersistentVolumes', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-pv-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const answer = <T extends object>(call: (ack: (r: Reply<T>) => void) => void): Reply<T> => {
    let reply: Reply<T> | undefined;
    call((r) => (reply = r));
    if (!reply) throw new Error('no answer');
    return reply;
  };
  const volume = { name: 'disk', value: 64, reservation: 'db/main', volume: 'data-1' };

  it('makes the volume outside every sandbox, links it into a sandbox, refuses to destroy it while held, then removes its data', () => {
    const pv = new PersistentVolumes(dir);
    const made = answer((ack) => pv.create({ role: 'db/main', id: 'data-1', containerPath: 'data', mode: 'RW' }, ack));
    expect(made).toEqual({ ok: true, path: path.join(dir, 'volumes', 'roles', 'db main', 'data-1') });
    fs.writeFileSync(path.join(pv.pathOf('db/main', 'data-1'), 'kept'), 'x');
    // The records survive a restart of the agent.
    const again = new PersistentVolumes(dir);
    const sandbox = path.join(dir, 'sandbox');
    fs.mkdirSync(sandbox);
    expect(again.use('c1', [volume], { sandbox, image: false, mounts: false })).toEqual([]);
    expect(fs.readFileSync(path.join(sandbox, 'data', 'kept'), 'utf8')).toBe('x');
    const refused = answer((ack) => again.destroy({ role: 'db/main', id: 'data-1' }, ack));
    expect(refused).toMatchObject({ ok: false, error: { code: 'VOLUME_IN_USE' } });
    again.release('c1');
    expect(answer((ack) => again.destroy({ role: 'db/main', id: 'data-1' }, ack))).toEqual({ ok: true });
    expect(fs.existsSync(again.pathOf('db/main', 'data-1'))).toBe(false);
    expect(again.list()).toEqual([]);
  });

  it('gives bind mounts where the agent mounts: in the sandbox for plain tasks (early), at the container path for images', () => {
    const pv = new PersistentVolumes(dir);
    answer((ack) => pv.create({ role: 'db/main', id: 'data-1', containerPath: 'data', mode: 'RO' }, ack));
    const source = pv.pathOf('db/main', 'data-1');
    expect(pv.use('c1', [volume], { sandbox: '/sb', image: false, mounts: true })).toEqual([
      { source, destination: '/sb/data', readOnly: true, early: true },
    ]);
    expect(pv.use('c2', [volume], { sandbox: '/sb', image: true, mounts: false })).toEqual([
      { source, destination: '/mnt/mesos/sandbox/data', readOnly: true },
    ]);
  });

  it('refuses a volume the agent does not have, and bad messages', () => {
    const pv = new PersistentVolumes(dir);
    expect(() => pv.use('c1', [volume], { sandbox: '/sb', image: false, mounts: true })).toThrow(VolumeError);
    expect(answer((ack) => pv.create({ role: 'db', id: '../x', containerPath: 'data', mode: 'RW' }, ack))).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
    expect(answer((ack) => pv.create({ role: 'db', id: 'x', containerPath: '../up', mode: 'RW' }, ack))).toMatchObject({ ok: false });
  });
});
