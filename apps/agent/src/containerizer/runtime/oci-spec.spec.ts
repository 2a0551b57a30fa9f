import { containerArgs, containerEnv, NoCommand, ociConfig } from './oci-spec';

describe('what an image task runs (Mesos rules)', () => {
  const image = { env: [], entrypoint: ['/entry', '-v'], cmd: ['serve', '--port=80'] };

  it('runs a shell command as /bin/sh -c, ignoring the entrypoint and cmd', () => {
    expect(containerArgs({ shell: 'echo hi' }, image)).toEqual(['/bin/sh', '-c', 'echo hi']);
  });

  it("runs a plain command after the image's entrypoint (its cmd ignored), or alone without one", () => {
    expect(containerArgs({ value: 'run', arguments: ['a'] }, image)).toEqual(['/entry', '-v', 'run', 'a']);
    expect(containerArgs({ value: '/bin/ls', arguments: ['-l'] }, { env: [], cmd: ['x'] })).toEqual(['/bin/ls', '-l']);
  });

  it("runs the image's entrypoint and cmd when the task names no command, and refuses when the image names neither", () => {
    expect(containerArgs(undefined, image)).toEqual(['/entry', '-v', 'serve', '--port=80']);
    expect(containerArgs(undefined, { env: [], cmd: ['sh'] })).toEqual(['sh']);
    expect(() => containerArgs(undefined, { env: [] })).toThrow(NoCommand);
  });

  it("takes the image's environment, then the sandbox's, then the task's", () => {
    const env = containerEnv({ env: ['PATH=/opt/bin', 'A=image', 'B=image'] }, { B: 'task' });
    expect(env).toEqual(['PATH=/opt/bin', 'A=image', 'B=task', 'MESOS_SANDBOX=/mnt/mesos/sandbox', 'HOME=/mnt/mesos/sandbox']);
  });

  it("runs as the task's user with no capabilities, its cwd the image's working directory or else the sandbox, and host networking", () => {
    const base = { rootfs: '/r', env: {}, uid: 1000, gid: 1000, gids: [1000, 27], cgroupsPath: 'arbiter-x', mounts: [] };
    const config = ociConfig({ ...base, image: { env: [] }, command: { shell: 'true' } }) as {
      process: { user: unknown; cwd: string; capabilities: { effective: string[] } };
      linux: { namespaces: Array<{ type: string }>; cgroupsPath: string };
    };
    expect(config.process.user).toEqual({ uid: 1000, gid: 1000, additionalGids: [27] });
    expect(config.process.cwd).toBe('/mnt/mesos/sandbox');
    expect(config.process.capabilities.effective).toEqual([]);
    expect(config.linux.namespaces.map((n) => n.type)).toEqual(['pid', 'ipc', 'uts', 'mount']);
    expect(config.linux.cgroupsPath).toBe('arbiter-x');
    const inWorkDir = ociConfig({ ...base, image: { env: [], workingDir: '/app' }, command: { shell: 'true' } }) as {
      process: { cwd: string };
    };
    expect(inWorkDir.process.cwd).toBe('/app');
  });

  it("joins the PID namespace it is given (a nested container sharing its executor's) instead of making one", () => {
    const base = { rootfs: '/r', env: {}, uid: 1000, gid: 1000, gids: [], cgroupsPath: 'arbiter-x', mounts: [], image: { env: [] } };
    const config = ociConfig({ ...base, command: { shell: 'true' }, pidNamespace: '/proc/42/ns/pid' }) as {
      linux: { namespaces: Array<{ type: string; path?: string }> };
    };
    expect(config.linux.namespaces[0]).toEqual({ type: 'pid', path: '/proc/42/ns/pid' });
    expect(config.linux.namespaces.slice(1).every((n) => n.path === undefined)).toBe(true);
  });

  it('creates only the device nodes it is given (its GPUs) and allows only those beside the default deny', () => {
    const base = { rootfs: '/r', env: {}, uid: 1000, gid: 1000, gids: [], cgroupsPath: 'arbiter-x', mounts: [], image: { env: [] } };
    const devices = [{ path: '/dev/nvidia1', type: 'c' as const, major: 195, minor: 1 }];
    const config = ociConfig({ ...base, command: { shell: 'true' }, devices }) as {
      linux: { devices: Array<{ path: string; major: number; minor: number }>; resources: { devices: Array<Record<string, unknown>> } };
    };
    expect(config.linux.devices).toMatchObject([{ path: '/dev/nvidia1', type: 'c', major: 195, minor: 1 }]);
    expect(config.linux.resources.devices).toEqual([
      { allow: false, access: 'rwm' },
      { allow: true, type: 'c', major: 195, minor: 1, access: 'rwm' },
    ]);
    const none = ociConfig({ ...base, command: { shell: 'true' } }) as typeof config;
    expect(none.linux.devices).toEqual([]);
    expect(none.linux.resources.devices).toEqual([{ allow: false, access: 'rwm' }]);
  });
});
