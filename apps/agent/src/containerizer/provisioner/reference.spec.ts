import { formatReference, onRegistry, parseReference, ReferenceError } from './reference';

const D = `sha256:${'ab'.repeat(32)}`;
const norm = (text: string, def?: string) => formatReference(parseReference(text, def));

describe('image references', () => {
  it('normalizes Docker Hub names as Docker does', () => {
    expect(norm('busybox')).toBe('docker.io/library/busybox:latest');
    expect(norm('busybox:1.36')).toBe('docker.io/library/busybox:1.36');
    expect(norm('team/app')).toBe('docker.io/team/app:latest');
    expect(norm('docker.io/busybox')).toBe('docker.io/library/busybox:latest');
    expect(norm('index.docker.io/library/busybox:1')).toBe('docker.io/library/busybox:1');
  });

  it('takes a first component with a dot, a port or localhost as the registry', () => {
    expect(norm('registry:5000/team/app:1.2')).toBe('registry:5000/team/app:1.2');
    expect(norm('quay.io/coreos/etcd')).toBe('quay.io/coreos/etcd:latest');
    expect(norm('localhost/app')).toBe('localhost/app:latest');
    expect(norm('127.0.0.1:5000/app:v1')).toBe('127.0.0.1:5000/app:v1');
    expect(norm('local/app')).toBe('docker.io/local/app:latest');
  });

  it('keeps a digest, with or without a tag, and reads no latest beside a digest', () => {
    expect(parseReference(`busybox@${D}`)).toEqual({ registry: 'docker.io', repository: 'library/busybox', digest: D });
    expect(norm(`r:5000/app:1@${D}`)).toBe(`r:5000/app:1@${D}`);
  });

  it('puts names without a registry on the configured default registry', () => {
    expect(norm('busybox', 'mirror.local:5000')).toBe('mirror.local:5000/library/busybox:latest');
    expect(norm('team/app', 'https://reg.local/')).toBe('reg.local/team/app:latest');
    expect(formatReference(onRegistry(parseReference('busybox:1'), 'm.local'))).toBe('m.local/library/busybox:1');
  });

  it.each(['', 'BusyBox', 'app:', 'app:-x', 'app@sha256:abc', `app@md5:${'a'.repeat(32)}`, 'a//b', 'app:a/b', 'bad_host:5000x/app'])(
    'refuses %j with a reason',
    (text) => {
      expect(() => parseReference(text)).toThrow(ReferenceError);
    },
  );
});
