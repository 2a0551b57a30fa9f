import { imageOptionsFromEnv, parseBytes, parseCredentials } from './options';

describe('image options', () => {
  it('reads the registries, archive directory and store limit from ARBITER_* variables', () => {
    expect(
      imageOptionsFromEnv({
        ARBITER_DEFAULT_REGISTRY: 'https://registry.local:5000/',
        ARBITER_REGISTRY_MIRRORS: 'm1.local, m2.local:5000',
        ARBITER_INSECURE_REGISTRIES: 'registry.local:5000',
        ARBITER_REGISTRY_CERT_DIR: '/etc/arbiter/certs',
        ARBITER_IMAGE_ARCHIVE_DIR: '/srv/images',
        ARBITER_IMAGE_STORE_LIMIT: '20G',
      }),
    ).toEqual({
      defaultRegistry: 'registry.local:5000',
      mirrors: ['m1.local', 'm2.local:5000'],
      insecureRegistries: ['registry.local:5000'],
      certDir: '/etc/arbiter/certs',
      archiveDir: '/srv/images',
      storeLimitBytes: 20 * 1024 ** 3,
    });
    expect(imageOptionsFromEnv({})).toEqual({ mirrors: [], insecureRegistries: [] });
    expect(() => imageOptionsFromEnv({ ARBITER_IMAGE_STORE_LIMIT: 'lots' })).toThrow(/not a size such as 20G/);
  });

  it('reads sizes in bytes or with a suffix', () => {
    expect(parseBytes('1048576')).toBe(1048576);
    expect(parseBytes('512M')).toBe(512 * 1024 * 1024);
    expect(parseBytes('1.5GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseBytes('-1')).toBeNull();
  });

  it('checks a credentials file', () => {
    expect(parseCredentials('{"index.docker.io": {"username": "u", "password": "p"}}')).toEqual({
      'docker.io': { username: 'u', password: 'p' },
    });
    expect(() => parseCredentials('[]')).toThrow(/JSON object/);
    expect(() => parseCredentials('{"r": {"username": "a:b", "password": "p"}}')).toThrow(/'r' needs a string username/);
    expect(() => parseCredentials('{"r": {"username": "a"}}')).toThrow(/password/);
  });
});
