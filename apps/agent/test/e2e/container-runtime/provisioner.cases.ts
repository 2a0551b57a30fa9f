/**
 * The image provisioner against a real registry (Debian's docker-registry on a free port) and
 * real skopeo and umoci, with images built here from busybox: anonymous and basic-auth pulls,
 * one pull for twenty concurrent asks, the reasons a user sees (unknown image, registry down,
 * credentials refused, digest mismatch, disk full), digest pins, mirrors, an offline archive
 * directory, collection past the store's limit, and a restarted agent's store.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defined } from '@arbiter/test-support';
import { ImageError, type ProvisionedImage } from '../../../src/containerizer/provisioner/image';
import { detectImageTools, type ImageTools } from '../../../src/containerizer/provisioner/image-tools';
import { createProvisioner, ImageProvisioner, type ProvisionerOptions } from '../../../src/containerizer/provisioner';
import { pushTestImage, registryBlob, removeTestImages, saveTestImage, startRegistry, type TestRegistry } from '../../support/registry';

describe('image provisioner (skopeo, umoci, a local registry)', () => {
  let dir: string;
  let registry: TestRegistry;
  let digest: string;
  let tools: ImageTools;
  const stops: Array<() => Promise<void>> = [];
  const provisioner = (options: ProvisionerOptions = {}, work = path.join(dir, 'work')) =>
    new ImageProvisioner(work, tools, { insecureRegistries: [registry.host], ...options });
  const leftovers = (work = path.join(dir, 'work')) => ({
    tmp: fs.readdirSync(path.join(work, 'images', 'tmp')),
    rootfs: fs.readdirSync(path.join(work, 'images', 'rootfs')),
  });
  const failure = async (p: Promise<unknown>): Promise<ImageError> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ImageError);
    return err as ImageError;
  };

  beforeAll(async () => {
    const found = detectImageTools();
    expect(found.problem).toBeUndefined();
    tools = defined(found.tools, 'skopeo and umoci');
    registry = await startRegistry();
    stops.push(() => registry.stop());
    digest = await pushTestImage(registry, 'test/busybox', '1');
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    removeTestImages();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-provisioner-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports skopeo and umoci with their versions, and why images are off without them', () => {
    const found = createProvisioner(dir);
    expect(found.provisioner).toBeInstanceOf(ImageProvisioner);
    expect(Object.keys(found.versions).sort()).toEqual(['skopeo', 'umoci']);
    expect(found.versions.skopeo).toMatch(/^\d+\.\d+/);
    const none = createProvisioner(
      dir,
      {},
      undefined,
      detectImageTools(() => undefined),
    );
    expect(none.provisioner).toBeUndefined();
    expect(none.problem).toMatch(/skopeo and umoci not installed \(apt-get install skopeo umoci\)/);
  });

  it('pulls an image anonymously, unpacks it once and serves later asks from the store', async () => {
    const p = provisioner();
    const image = await p.provision(`${registry.host}/test/busybox:1`);
    expect(image.reference).toBe(`${registry.host}/test/busybox:1`);
    expect(image.digest).toBe(digest);
    expect(fs.readFileSync(path.join(image.rootfs, 'etc', 'os-release'), 'utf8')).toContain('ID=arbitertest');
    expect(fs.readlinkSync(path.join(image.rootfs, 'bin', 'sh'))).toBe('busybox');
    expect(execFileSync(path.join(image.rootfs, 'bin', 'busybox'), ['echo', 'ran'], { encoding: 'utf8' }).trim()).toBe('ran');
    expect(image.config).toEqual({ env: ['PATH=/bin'], cmd: ['/bin/sh'], workingDir: '/' });
    const again = await p.provision(`${registry.host}/test/busybox:1`);
    expect(again.rootfs).toBe(image.rootfs);
    expect(p.metrics()).toMatchObject({ pulls: 1, cacheHits: 1, pullFailures: 0, images: 1 });
    expect(p.metrics().storeBytes).toBeGreaterThan(fs.statSync('/usr/bin/busybox').size);
    expect(leftovers().tmp).toEqual([]);
  });

  it("shows the registry's digest for a Docker-format manifest, stored as OCI", async () => {
    const docker = await pushTestImage(registry, 'test/docker-format', '1', { marker: 'v2s2', format: 'v2s2' });
    const p = provisioner();
    const image = await p.provision(`${registry.host}/test/docker-format:1`);
    expect(image.digest).toBe(docker);
    expect(p.images()[0].manifest).not.toBe(docker);
    expect(image.rootfs).toBe(path.join(dir, 'work', 'images', 'rootfs', p.images()[0].manifest.slice('sha256:'.length)));
    expect(fs.readFileSync(path.join(image.rootfs, 'etc', 'os-release'), 'utf8')).toContain('ID=v2s2');
    expect((await p.provision(`${registry.host}/test/docker-format@${docker}`)).rootfs).toBe(image.rootfs);
  });

  it('pulls once for twenty tasks asking at once', async () => {
    // skopeo behind a script that notes each run.
    const calls = path.join(dir, 'skopeo-calls');
    const skopeo = path.join(dir, 'skopeo');
    fs.writeFileSync(skopeo, `#!/bin/sh\necho "$1" >> ${calls}\nexec ${tools.skopeo} "$@"\n`, { mode: 0o755 });
    const p = new ImageProvisioner(path.join(dir, 'work'), { ...tools, skopeo }, { insecureRegistries: [registry.host] });
    const images = await Promise.all(Array.from({ length: 20 }, () => p.provision(`${registry.host}/test/busybox:1`)));
    expect(new Set(images.map((i) => i.rootfs)).size).toBe(1);
    expect(new Set(images.map((i) => i.digest))).toEqual(new Set([digest]));
    expect(fs.readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['inspect', 'copy']);
    expect(p.metrics()).toMatchObject({ pulls: 1, pullFailures: 0 });
    await Promise.all(Array.from({ length: 20 }, () => p.provision(`${registry.host}/test/busybox:1`)));
    expect(p.metrics()).toMatchObject({ pulls: 1, cacheHits: 20 });
  });

  it('refuses a plain-HTTP registry that is not on the allow-list, saying how to allow it', async () => {
    const p = provisioner({ insecureRegistries: [] });
    const err = await failure(p.provision(`${registry.host}/test/busybox:1`));
    expect(err.message).toMatch(/speaks plain HTTP: list it among the agent's insecure registries/);
    expect(err.reason).toBe('REASON_CONTAINER_LAUNCH_FAILED');
  });

  it('names an unknown image and a registry that is down, and leaves nothing half-made', async () => {
    const p = provisioner();
    expect((await failure(p.provision(`${registry.host}/test/nothing:1`))).message).toMatch(/unknown image/);
    expect((await failure(p.provision(`${registry.host}/test/busybox:2`))).message).toMatch(/unknown image/);
    const down = await startRegistry();
    await down.stop();
    const err = await failure(provisioner({ insecureRegistries: [down.host] }).provision(`${down.host}/test/busybox:1`));
    expect(err.message).toMatch(new RegExp(`registry unreachable: registry ${down.host} did not answer`));
    expect((await failure(p.provision('Not A Reference'))).message).toMatch(/is not a Docker image reference/);
    expect(leftovers()).toEqual({ tmp: [], rootfs: [] });
    expect(p.metrics()).toMatchObject({ pulls: 0, pullFailures: 2 });
  });

  it('pulls with basic credentials and refuses bad or missing ones', async () => {
    const auth = { username: 'puller', password: 's3cret' };
    const secured = await startRegistry({ auth });
    stops.push(() => secured.stop());
    const pushed = await pushTestImage(secured, 'team/app', 'v1');
    const ref = `${secured.host}/team/app:v1`;
    const good = provisioner({ insecureRegistries: [secured.host], credentials: { [secured.host]: auth } });
    expect((await good.provision(ref)).digest).toBe(pushed);
    expect(fs.statSync(path.join(dir, 'work', 'images', 'auth.json')).mode & 0o777).toBe(0o600);
    const bad = provisioner(
      { insecureRegistries: [secured.host], credentials: { [secured.host]: { username: 'puller', password: 'wrong' } } },
      path.join(dir, 'bad'),
    );
    expect((await failure(bad.provision(ref))).message).toMatch(
      new RegExp(`authentication refused by registry ${secured.host}: check the agent's credentials`),
    );
    const none = provisioner({ insecureRegistries: [secured.host] }, path.join(dir, 'none'));
    expect((await failure(none.provision(ref))).message).toMatch(/authentication refused/);
    expect(leftovers(path.join(dir, 'bad'))).toEqual({ tmp: [], rootfs: [] });
  });

  it('pulls with bearer tokens: the registry sends skopeo to its token server with the basic credentials', async () => {
    const auth = { username: 'puller', password: 'tok3n' };
    const secured = await startRegistry({ auth, bearer: true });
    stops.push(() => secured.stop());
    const pushed = await pushTestImage(secured, 'team/app', 'v1');
    const ref = `${secured.host}/team/app:v1`;
    const before = secured.tokens?.issued ?? 0;
    const good = provisioner({ insecureRegistries: [secured.host], credentials: { [secured.host]: auth } });
    expect((await good.provision(ref)).digest).toBe(pushed);
    expect(secured.tokens?.issued).toBeGreaterThan(before);
    const bad = provisioner(
      { insecureRegistries: [secured.host], credentials: { [secured.host]: { ...auth, password: 'no' } } },
      path.join(dir, 'bad'),
    );
    expect((await failure(bad.provision(ref))).message).toMatch(/authentication refused/);
  });

  it('pulls over TLS from a registry with a private CA given the CA directory, and names the untrusted certificate without it', async () => {
    const tls = await startRegistry({ tls: true });
    stops.push(() => tls.stop());
    const pushed = await pushTestImage(tls, 'team/app', 'v1');
    const ref = `${tls.host}/team/app:v1`;
    const trusted = provisioner({ insecureRegistries: [], certDir: tls.caDir });
    expect((await trusted.provision(ref)).digest).toBe(pushed);
    const untrusted = provisioner({ insecureRegistries: [] }, path.join(dir, 'untrusted'));
    expect((await failure(untrusted.provision(ref))).message).toMatch(/presented a certificate the agent does not trust: add its CA/);
  });

  it('pins a digest, refuses one the registry does not have, and detects content that does not match its digest', async () => {
    const p = provisioner();
    const pinned = await p.provision(`${registry.host}/test/busybox@${digest}`);
    expect(pinned.digest).toBe(digest);
    expect(pinned.reference).toBe(`${registry.host}/test/busybox@${digest}`);
    // The same image by tag, then by digest with a tag: from the store.
    expect((await p.provision(`${registry.host}/test/busybox:1`)).rootfs).toBe(pinned.rootfs);
    expect((await p.provision(`${registry.host}/test/busybox:1@${digest}`)).rootfs).toBe(pinned.rootfs);
    expect(p.metrics()).toMatchObject({ pulls: 2, cacheHits: 1 });
    const other = `sha256:${'0'.repeat(64)}`;
    expect((await failure(p.provision(`${registry.host}/test/busybox@${other}`))).message).toMatch(/unknown image/);

    // A registry serving tampered content: a manifest, then a layer, that no longer match their digests.
    const tampered = await startRegistry();
    stops.push(() => tampered.stop());
    const d = await pushTestImage(tampered, 'test/t', '1', { marker: 'tampered' });
    const manifestFile = registryBlob(tampered, d);
    const original = fs.readFileSync(manifestFile, 'utf8');
    const manifest = JSON.parse(original) as { layers: Array<{ digest: string }> };
    fs.writeFileSync(manifestFile, `${original} `);
    const q = provisioner({ insecureRegistries: [tampered.host] }, path.join(dir, 'q'));
    expect((await failure(q.provision(`${tampered.host}/test/t@${d}`))).message).toMatch(/digest mismatch/);
    fs.writeFileSync(manifestFile, original);
    fs.appendFileSync(registryBlob(tampered, manifest.layers[0].digest), 'junk');
    expect((await failure(q.provision(`${tampered.host}/test/t:1`))).message).toMatch(/digest mismatch/);
    expect(leftovers(path.join(dir, 'q'))).toEqual({ tmp: [], rootfs: [] });
    expect(fs.readdirSync(path.join(dir, 'q', 'images', 'layout', 'blobs', 'sha256'))).toEqual([]);
  });

  it('re-resolves a tag with forcePull only', async () => {
    const p = provisioner();
    const first = await p.provision(`${registry.host}/test/moving:1`).catch(() => undefined);
    expect(first).toBeUndefined();
    const a = await pushTestImage(registry, 'test/moving', '1', { marker: 'first' });
    expect((await p.provision(`${registry.host}/test/moving:1`)).digest).toBe(a);
    const b = await pushTestImage(registry, 'test/moving', '1', { marker: 'second' });
    expect((await p.provision(`${registry.host}/test/moving:1`)).digest).toBe(a);
    const forced = await p.provision(`${registry.host}/test/moving:1`, { forcePull: true });
    expect(forced.digest).toBe(b);
    expect(fs.readFileSync(path.join(forced.rootfs, 'etc', 'os-release'), 'utf8')).toContain('ID=second');
    // The earlier image is still known by its digest (containers running it are recovered so), with no pull.
    const earlier = await p.provision(`${registry.host}/test/moving@${a}`);
    expect(fs.readFileSync(path.join(earlier.rootfs, 'etc', 'os-release'), 'utf8')).toContain('ID=first');
    expect(p.metrics()).toMatchObject({ pulls: 2, cacheHits: 2 });
  });

  it("tries the default registry's mirrors in order before it", async () => {
    const mirror = await startRegistry();
    stops.push(() => mirror.stop());
    const fromMirror = await pushTestImage(mirror, 'library/busybox', '1', { marker: 'mirror' });
    await pushTestImage(registry, 'library/busybox', '1', { marker: 'origin' });
    await pushTestImage(registry, 'library/busybox', '2', { marker: 'origin' });
    const down = await startRegistry();
    await down.stop();
    const p = provisioner({
      defaultRegistry: registry.host,
      mirrors: [down.host, mirror.host],
      insecureRegistries: [registry.host, mirror.host, down.host],
    });
    const image = await p.provision('busybox:1');
    expect(image.reference).toBe(`${registry.host}/library/busybox:1`);
    expect(image.digest).toBe(fromMirror);
    // Not on the mirror: the registry itself.
    expect(fs.readFileSync(path.join((await p.provision('busybox:2')).rootfs, 'etc', 'os-release'), 'utf8')).toContain('ID=origin');
  });

  it('provisions from an offline directory of archives, docker-archive and oci-archive', async () => {
    const archives = path.join(dir, 'archives');
    await saveTestImage(path.join(archives, 'busybox:1.36.tar'), 'docker-archive', { marker: 'offline', name: 'busybox:1.36' });
    const ociDigest = await saveTestImage(path.join(archives, 'team', 'app:2.tar'), 'oci-archive', { marker: 'offline-oci' });
    const p = provisioner({ archiveDir: archives });
    const image = await p.provision('busybox:1.36');
    expect(image.reference).toBe('docker.io/library/busybox:1.36');
    expect(fs.readFileSync(path.join(image.rootfs, 'etc', 'os-release'), 'utf8')).toContain('ID=offline');
    expect((await p.provision(`team/app:2@${ociDigest}`)).digest).toBe(ociDigest);
    const wrong = `sha256:${'1'.repeat(64)}`;
    expect((await failure(p.provision(`team/app:2@${wrong}`))).message).toMatch(
      new RegExp(`digest mismatch: archive .*app:2.tar holds manifest ${ociDigest}`),
    );
    expect((await failure(p.provision('busybox:9'))).message).toMatch(
      /unknown image: the agent's image archive directory .* has no busybox:9.tar/,
    );
    expect(leftovers().tmp).toEqual([]);
  });

  it('collects unused images least recently used first once the store is over its limit, never one in use', async () => {
    const MB = 1024 * 1024;
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((m) => pushTestImage(registry, `gc/${m}`, '1', { marker: m, extraBytes: 2 * MB })),
    );
    // Each image: ~3 MB of layer and ~4 MB unpacked. The limit holds one and a half.
    const p = provisioner({ storeLimitBytes: 11 * MB });
    const held: ProvisionedImage[] = [];
    for (const name of ['a', 'b']) {
      const image = await p.provision(`${registry.host}/gc/${name}:1`);
      held.push(image);
    }
    // Both in use: over the limit, nothing collected.
    await p.collect();
    expect(
      p
        .images()
        .map((i) => i.digest)
        .sort(),
    ).toEqual([a, b].sort());
    held[0].release();
    held[1].release();
    await p.collect();
    expect(p.images().map((i) => i.digest)).toEqual([b]);
    expect(p.metrics().collected).toBe(1);
    const cImage = await p.provision(`${registry.host}/gc/c:1`);
    await p.collect();
    expect(p.images().map((i) => i.digest)).toEqual([c]);
    expect(fs.existsSync(cImage.rootfs)).toBe(true);
    expect(leftovers().rootfs).toEqual([c.slice('sha256:'.length)]);
    // Only c's blobs (manifest, config, layer) are left in the layout.
    expect(fs.readdirSync(path.join(dir, 'work', 'images', 'layout', 'blobs', 'sha256'))).toHaveLength(3);
    expect(p.metrics().storeBytes).toBeLessThanOrEqual(11 * MB);
  });

  it('knows its images after a restart (a new provisioner on the same store)', async () => {
    const first = provisioner();
    const image = await first.provision(`${registry.host}/test/busybox:1`);
    // A half-made unpack from a crash is cleared at recovery.
    fs.mkdirSync(path.join(dir, 'work', 'images', 'tmp', 'unpack-crashed'));
    const again = provisioner({ insecureRegistries: [] });
    await again.recover();
    expect(leftovers().tmp).toEqual([]);
    expect(again.images()).toEqual([expect.objectContaining({ reference: image.reference, digest: image.digest })]);
    // A plain-HTTP registry is not allowed to this one: the image can only come from the store.
    const recovered = await again.provision(`${registry.host}/test/busybox:1`);
    expect(recovered.rootfs).toBe(image.rootfs);
    expect(again.metrics()).toMatchObject({ pulls: 0, cacheHits: 1 });
  });

  // A small tmpfs as the agent's work directory (the CI runs the agent's e2e tests as root, as agents run).
  it('sets an unreadable index aside and pulls again rather than failing', async () => {
    const first = provisioner();
    await first.provision(`${registry.host}/test/busybox:1`);
    const index = path.join(dir, 'work', 'images', 'index.json');
    fs.writeFileSync(index, '{"images": {"trunc');
    const again = provisioner();
    await again.recover();
    expect(again.images()).toEqual([]);
    expect(fs.existsSync(`${index}.corrupt`)).toBe(true);
    expect((await again.provision(`${registry.host}/test/busybox:1`)).digest).toBe(digest);
    expect(again.metrics()).toMatchObject({ pulls: 1, images: 1 });
  });

  it('fails with "disk full" when the store has no room to unpack, and leaves nothing behind', async () => {
    expect(process.getuid?.()).toBe(0);
    const work = path.join(dir, 'small');
    fs.mkdirSync(work);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', work]);
    try {
      const p = provisioner({}, work);
      const err = await failure(p.provision(`${registry.host}/test/busybox:1`));
      expect(err.message).toMatch(/disk full/);
      expect(leftovers(work)).toEqual({ tmp: [], rootfs: [] });
    } finally {
      execFileSync('umount', [work]);
    }
  });
});
