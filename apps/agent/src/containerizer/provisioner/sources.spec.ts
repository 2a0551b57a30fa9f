import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseReference } from './reference';
import { archiveFor, authFileContent, registrySources } from './sources';

describe('image sources', () => {
  it("tries the default registry's mirrors in order, with plain HTTP and the CA directory only where configured", () => {
    const options = {
      defaultRegistry: 'reg.local',
      mirrors: ['m1.local', 'm2.local:5000'],
      insecureRegistries: ['m2.local:5000'],
      certDir: '/certs',
    };
    const sources = registrySources(parseReference('busybox:1', 'reg.local'), options, '/w/auth.json');
    expect(sources.map((s) => s.image)).toEqual([
      'docker://m1.local/library/busybox:1',
      'docker://m2.local:5000/library/busybox:1',
      'docker://reg.local/library/busybox:1',
    ]);
    expect(sources[0].args).toEqual(['--src-authfile', '/w/auth.json', '--src-cert-dir', '/certs']);
    expect(sources[1].args).toEqual(['--src-authfile', '/w/auth.json', '--src-tls-verify=false', '--src-cert-dir', '/certs']);
    expect(sources[1].resolve).toEqual({
      repository: 'docker://m2.local:5000/library/busybox',
      args: ['--authfile', '/w/auth.json', '--tls-verify=false', '--cert-dir', '/certs'],
    });
    // Another registry than the default: no mirrors.
    expect(registrySources(parseReference('other.local/app@sha256:' + 'a'.repeat(64)), options, '/a').map((s) => s.image)).toEqual([
      `docker://other.local/app@sha256:${'a'.repeat(64)}`,
    ]);
  });

  it('hands skopeo only the configured credentials', () => {
    expect(JSON.parse(authFileContent({ credentials: { 'https://index.docker.io': { username: 'u', password: 'p:w' } } }))).toEqual({
      auths: { 'docker.io': { auth: Buffer.from('u:p:w').toString('base64') } },
    });
    expect(JSON.parse(authFileContent({}))).toEqual({ auths: {} });
  });

  it("finds archives as <repository>:<tag>.tar, Docker Hub's library/ optional, or <repository>@<digest>.tar", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-archives-'));
    try {
      fs.mkdirSync(path.join(dir, 'team'));
      for (const f of ['busybox:1.tar', 'team/app:2.tar', `app@sha256:${'b'.repeat(64)}.tar`]) fs.writeFileSync(path.join(dir, f), '');
      expect(archiveFor(parseReference('busybox:1'), dir)).toBe(path.join(dir, 'busybox:1.tar'));
      expect(archiveFor(parseReference('team/app:2'), dir)).toBe(path.join(dir, 'team', 'app:2.tar'));
      expect(archiveFor(parseReference(`app@sha256:${'b'.repeat(64)}`), dir)).toBe(path.join(dir, `app@sha256:${'b'.repeat(64)}.tar`));
      expect(archiveFor(parseReference(`app@sha256:${'c'.repeat(64)}`), dir)).toBeUndefined();
      expect(archiveFor(parseReference('busybox:2'), dir)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
