import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveVolumes, VolumeError, within } from './volumes';

describe('volumes', () => {
  let dir: string;
  let ctx: Parameters<typeof resolveVolumes>[1];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-volumes-'));
    for (const d of ['allowed/data', 'other', 'sandbox']) fs.mkdirSync(path.join(dir, d), { recursive: true });
    ctx = { allowedHostPaths: [path.join(dir, 'allowed')], sandbox: path.join(dir, 'sandbox'), image: true };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const host = (p: string, containerPath = '/data') => ({
    containerPath,
    mode: 'RO' as const,
    source: { type: 'HOST_PATH' as const, path: p },
  });

  it('mounts a host path under an allowed one, read-only as asked; relative container paths go under the sandbox', () => {
    expect(resolveVolumes([host(path.join(dir, 'allowed/data'))], ctx)).toEqual([
      { source: path.join(dir, 'allowed/data'), destination: '/data', readOnly: true },
    ]);
    expect(resolveVolumes([host(path.join(dir, 'allowed'), 'in')], ctx)[0].destination).toBe('/mnt/mesos/sandbox/in');
    expect(resolveVolumes([host(path.join(dir, 'allowed'), 'in')], { ...ctx, image: false })[0].destination).toBe(
      path.join(dir, 'sandbox/in'),
    );
  });

  it('refuses host paths outside the allow-list, through .. or a symlink, and every one when none is allowed', () => {
    fs.symlinkSync(path.join(dir, 'other'), path.join(dir, 'allowed', 'link'));
    for (const p of [path.join(dir, 'other'), path.join(dir, 'allowed/../other'), path.join(dir, 'allowed/link')])
      expect(() => resolveVolumes([host(p)], ctx)).toThrow(VolumeError);
    expect(() => resolveVolumes([host(path.join(dir, 'allowed'))], { ...ctx, allowedHostPaths: [] })).toThrow(
      /this agent allows no host paths/,
    );
  });

  it('keeps sandbox paths inside the sandbox (made when missing) and needs an executor for PARENT', () => {
    const sandboxPath = (p: string, sandboxType: 'SELF' | 'PARENT' = 'SELF') => ({
      containerPath: '/s',
      mode: 'RW' as const,
      source: { type: 'SANDBOX_PATH' as const, sandboxType, path: p },
    });
    expect(resolveVolumes([sandboxPath('shared/x')], ctx)[0]).toEqual({
      source: path.join(dir, 'sandbox/shared/x'),
      destination: '/s',
      readOnly: false,
    });
    expect(fs.statSync(path.join(dir, 'sandbox/shared/x')).isDirectory()).toBe(true);
    expect(() => resolveVolumes([sandboxPath('../other')], ctx)).toThrow(/outside the sandbox/);
    expect(() => resolveVolumes([sandboxPath('x', 'PARENT')], ctx)).toThrow(/PARENT/);
    expect(() => resolveVolumes([{ ...sandboxPath('x'), containerPath: '/a/../etc' }], ctx)).toThrow(/'\.\.'/);
  });

  it("refuses a plain task's container path that a link in its sandbox leads elsewhere", () => {
    fs.symlinkSync(path.join(dir, 'other'), path.join(dir, 'sandbox', 'out'));
    expect(() => resolveVolumes([host(path.join(dir, 'allowed'), 'out/in')], { ...ctx, image: false })).toThrow(
      /leads outside the sandbox/,
    );
    expect(() => resolveVolumes([host(path.join(dir, 'allowed'), 'out')], { ...ctx, image: false })).toThrow(/leads outside the sandbox/);
  });

  it('tells whether a path is at or below another', () => {
    expect([within('/a', '/a'), within('/a', '/a/b'), within('/a', '/ab'), within('/a', '/')]).toEqual([true, true, false, false]);
  });
});
