/**
 * The agent's image provisioner (Mesos's provisioner with its Docker store): images are copied
 * by skopeo into one OCI layout under `<workDir>/images/layout` (blobs are content-addressed
 * and shared by every image, and skopeo verifies each one's digest), each manifest is unpacked
 * once by umoci into `<workDir>/images/rootfs/<manifest hex>`, shared read-only by every
 * container of that image, and `images/index.json` checkpoints reference -> digest, size, last
 * use. One pull per reference however many tasks ask at once; unused images are collected
 * least recently used first once the store is over its limit.
 *
 * skopeo rewrites the layout's index.json at the end of each copy, and umoci reads it, so the
 * copies, unpacks and collections that touch the layout run one at a time; pulls of one
 * reference share one run, and cache hits take no turn at all.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { diskUsage } from '../isolators/disk';
import { ImageError, type ProvisionedImage, type Provisioner } from './image';
import { asImageError, imageErrorOf, type ImageTools, run } from './image-tools';
import { DEFAULT_STORE_LIMIT, defaultRegistryOf, type ProvisionerOptions } from './options';
import { formatReference, type ImageReference, parseReference } from './reference';
import { archiveFor, archiveTransport, authFileContent, registrySources, type Source } from './sources';
import { ImageIndex, readImage, type StoredImage } from './store';

const LAYOUT = 'layout';
const DEFAULT_PULL_TIMEOUT = 10 * 60_000;

/** What the agent can report about its images (issue metrics: pulls, pull time, cache hits, store size). */
export interface ImageMetrics {
  pulls: number;
  pullFailures: number;
  /** Milliseconds spent in successful pulls, all together, and the last one's. */
  pullMsTotal: number;
  lastPullMs: number;
  cacheHits: number;
  /** Images collected to keep the store under its limit. */
  collected: number;
  images: number;
  storeBytes: number;
}

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class ImageProvisioner implements Provisioner {
  readonly dir: string;
  private readonly index: ImageIndex;
  private readonly inflight = new Map<string, Promise<StoredImage>>();
  /** Provisions under way or handed out, per reference: such an image is never collected. */
  private readonly pins = new Map<string, number>();
  /** Containers per layout manifest digest: such a root filesystem is never removed. */
  private readonly users = new Map<string, number>();
  private turn: Promise<unknown> = Promise.resolve();
  private recovered?: Promise<void>;
  private readonly counters: ImageMetrics = {
    pulls: 0,
    pullFailures: 0,
    pullMsTotal: 0,
    lastPullMs: 0,
    cacheHits: 0,
    collected: 0,
    images: 0,
    storeBytes: 0,
  };

  constructor(
    workDir: string,
    private readonly tools: ImageTools,
    private readonly options: ProvisionerOptions = {},
    private readonly log?: Logger,
  ) {
    this.dir = path.join(workDir, 'images');
    this.index = new ImageIndex(path.join(this.dir, 'index.json'));
  }

  /**
   * Reads the checkpointed index back (a restarted agent keeps its images) and clears what a
   * crash left half-made. Which images recovered containers use is not checkpointed here: the
   * runtime provisions each recovered container's image again (a store hit) to hold it.
   */
  recover(): Promise<void> {
    this.recovered ??= (async () => {
      fs.mkdirSync(path.join(this.dir, 'rootfs'), { recursive: true, mode: 0o700 });
      fs.rmSync(path.join(this.dir, 'tmp'), { recursive: true, force: true });
      fs.mkdirSync(path.join(this.dir, 'tmp'), { mode: 0o700 });
      fs.writeFileSync(path.join(this.dir, 'auth.json'), authFileContent(this.options), { mode: 0o600 });
      if (!fs.existsSync(path.join(this.dir, LAYOUT, 'index.json'))) {
        fs.rmSync(path.join(this.dir, LAYOUT), { recursive: true, force: true });
        await run(this.tools.umoci, ['init', '--layout', LAYOUT], { cwd: this.dir, timeoutMs: 30_000 });
      }
      // skopeo writes each blob to a temporary file in the layout first: a crash leaves them.
      for (const name of fs.readdirSync(path.join(this.dir, LAYOUT)))
        if (name.startsWith('oci-put-blob')) fs.rmSync(path.join(this.dir, LAYOUT, name), { force: true });
      this.index.load();
      for (const [ref, image] of this.index.images) if (!fs.existsSync(this.rootfsOf(image.manifest))) this.index.images.delete(ref);
      this.index.save();
      await this.measure();
    })();
    return this.recovered;
  }

  metrics(): ImageMetrics {
    return { ...this.counters, images: this.index.images.size };
  }

  /** The references the store holds, with their digests (for operators and tests). */
  images(): Array<{ reference: string } & StoredImage> {
    return [...this.index.images].map(([reference, image]) => ({ reference, ...image }));
  }

  async provision(reference: string, options: { forcePull?: boolean } = {}): Promise<ProvisionedImage> {
    await this.recover().catch((err: unknown) => {
      throw asImageError(reference, err);
    });
    let ref: ImageReference;
    try {
      ref = parseReference(reference, defaultRegistryOf(this.options));
    } catch (err) {
      throw new ImageError((err as Error).message);
    }
    const key = formatReference(ref);
    this.count(this.pins, key, 1);
    try {
      const cached = this.index.images.get(key) ?? this.byDigest(key, ref);
      let image: StoredImage;
      if (cached && !options.forcePull && fs.existsSync(this.rootfsOf(cached.manifest))) {
        this.counters.cacheHits++;
        image = cached;
      } else image = await this.once(key, ref);
      image.lastUsed = Date.now();
      const handed = this.handOut(key, image);
      // A new image may have taken the store over its limit: make room from the unused ones.
      if (image !== cached) this.collectLater();
      return handed;
    } catch (err) {
      this.count(this.pins, key, -1);
      throw err;
    }
  }

  /** A pinned reference to an image stored under another reference of its repository (its tag): stored under this one too. */
  private byDigest(key: string, ref: ImageReference): StoredImage | undefined {
    if (!ref.digest) return undefined;
    const repository = `${ref.registry}/${ref.repository}`;
    for (const [other, image] of this.index.images)
      if (image.digest === ref.digest && (other.startsWith(`${repository}:`) || other.startsWith(`${repository}@`))) {
        const same = { ...image };
        this.index.images.set(key, same);
        this.index.save();
        return same;
      }
    return undefined;
  }

  /** One pull per reference at a time: later askers wait for the one under way. */
  private once(key: string, ref: ImageReference): Promise<StoredImage> {
    let pull = this.inflight.get(key);
    if (!pull) {
      const started = Date.now();
      pull = this.exclusive(() => this.pull(key, ref)).then(
        (image) => {
          this.counters.pulls++;
          this.counters.lastPullMs = Date.now() - started;
          this.counters.pullMsTotal += this.counters.lastPullMs;
          this.log?.info({ image: key, digest: image.digest, ms: this.counters.lastPullMs }, 'image pulled');
          return image;
        },
        (err: unknown) => {
          this.counters.pullFailures++;
          this.log?.warn({ image: key, err: (err as Error).message }, 'image pull failed');
          throw asImageError(key, err);
        },
      );
      this.inflight.set(key, pull);
      const clear = () => this.inflight.delete(key);
      pull.then(clear, clear);
    }
    return pull;
  }

  private handOut(key: string, image: StoredImage): ProvisionedImage {
    this.count(this.users, image.manifest, 1);
    let released = false;
    return {
      reference: key,
      digest: image.digest,
      rootfs: this.rootfsOf(image.manifest),
      config: image.config,
      release: () => {
        if (released) return;
        released = true;
        this.count(this.users, image.manifest, -1);
        this.count(this.pins, key, -1);
        const stored = this.index.images.get(key);
        if (stored) {
          stored.lastUsed = Date.now();
          this.index.save();
        }
        if (this.counters.storeBytes > this.limit) this.collectLater();
      },
    };
  }

  private get limit(): number {
    return this.options.storeLimitBytes ?? DEFAULT_STORE_LIMIT;
  }

  private collectLater(): void {
    void this.collect().catch((err: unknown) => this.log?.warn({ err: (err as Error).message }, 'image collection failed'));
  }

  /** Copies the image into the layout (trying each source in order), checks its digest, unpacks it. */
  private async pull(key: string, ref: ImageReference): Promise<StoredImage> {
    const tag = `i${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
    const digestFile = path.join(this.dir, 'tmp', `${tag}.digest`);
    const timeoutMs = this.options.pullTimeoutMs ?? DEFAULT_PULL_TIMEOUT;
    const { sources, link } = await this.sourcesOf(key, ref, tag);
    let from: Source | undefined;
    let named: string | undefined;
    let failure: ImageError | undefined;
    try {
      for (const source of sources) {
        try {
          let image = source.image;
          named = ref.digest;
          if (source.resolve && !ref.digest) {
            const raw = await run(this.tools.skopeo, ['inspect', '--raw', ...source.resolve.args, source.image], {
              cwd: this.dir,
              timeoutMs,
            });
            named = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
            image = `${source.resolve.repository}@${named}`;
          }
          const copy = ['copy', '--quiet', ...source.args, '--digestfile', digestFile, image, `oci:${LAYOUT}:${tag}`];
          await run(this.tools.skopeo, copy, { cwd: this.dir, timeoutMs });
          from = source;
          break;
        } catch (err) {
          failure = imageErrorOf(key, source.where, err);
        }
      }
    } finally {
      if (link) fs.rmSync(link, { force: true });
    }
    if (!from) {
      await this.sweep();
      throw failure ?? new ImageError(`image ${key}: no source to pull it from`);
    }
    const manifest = fs.readFileSync(digestFile, 'utf8').trim();
    fs.rmSync(digestFile, { force: true });
    if (ref.digest && from.checkDigest && manifest !== ref.digest) {
      await this.untag(tag);
      throw new ImageError(
        `image ${key}: digest mismatch: ${from.where} holds manifest ${manifest}, not the ${ref.digest} the task pinned`,
      );
    }
    const rootfs = this.rootfsOf(manifest);
    if (!fs.existsSync(rootfs)) await this.unpack(key, tag, rootfs);
    const { config, blobBytes } = readImage(path.join(this.dir, LAYOUT), manifest);
    const rootfsBytes = await diskUsage(rootfs);
    const digest = from.resolve ? (named ?? manifest) : manifest;
    const image: StoredImage = { digest, manifest, tag, size: blobBytes + rootfsBytes, rootfsBytes, lastUsed: Date.now(), config };
    // A tag that moved (forcePull): its earlier image stays known by digest, which is how the
    // containers still running it (the runtime recovers them by reference and digest) find it.
    const previous = this.index.images.get(key);
    if (previous && previous.manifest !== manifest) {
      const alias = formatReference({ registry: ref.registry, repository: ref.repository, digest: previous.digest });
      if (!this.index.images.has(alias)) this.index.images.set(alias, previous);
    }
    this.index.images.set(key, image);
    this.index.save();
    await this.measure();
    return image;
  }

  private async sourcesOf(key: string, ref: ImageReference, tag: string): Promise<{ sources: Source[]; link?: string }> {
    const dir = this.options.archiveDir;
    if (!dir) return { sources: registrySources(ref, this.options, path.join(this.dir, 'auth.json')) };
    const file = archiveFor(ref, dir);
    const name = `${ref.repository.replace(/^library\//, '')}${ref.tag !== undefined ? `:${ref.tag}` : `@${ref.digest}`}.tar`;
    if (!file) throw new ImageError(`image ${key}: unknown image: the agent's image archive directory ${dir} has no ${name}`);
    // skopeo reads `transport:path:reference`: the archive's own name has a colon, a link does not.
    const link = path.join(this.dir, 'tmp', `${tag}-${randomBytes(4).toString('hex')}.tar`);
    fs.symlinkSync(path.resolve(file), link);
    const transport = await archiveTransport(file);
    return { sources: [{ where: `archive ${file}`, image: `${transport}:${link}`, args: [], checkDigest: true }], link };
  }

  /** umoci unpacks into a temporary folder renamed into place: a failed unpack (disk full) leaves nothing behind. */
  private async unpack(key: string, tag: string, rootfs: string): Promise<void> {
    const work = path.join(this.dir, 'tmp', `unpack-${randomBytes(6).toString('hex')}`);
    fs.mkdirSync(work, { mode: 0o700 });
    const rootless = process.getuid?.() !== 0 ? ['--rootless'] : [];
    try {
      await run(this.tools.umoci, ['raw', 'unpack', ...rootless, '--image', `${LAYOUT}:${tag}`, path.join(work, 'rootfs')], {
        cwd: this.dir,
        timeoutMs: this.options.pullTimeoutMs ?? DEFAULT_PULL_TIMEOUT,
      });
      fs.renameSync(path.join(work, 'rootfs'), rootfs);
    } catch (err) {
      // umoci may die of a full disk without saying so (a panic's stack): the disk tells.
      if (fullDisk(work)) throw new ImageError(`image ${key}: disk full on the agent while unpacking the image`);
      throw imageErrorOf(key, 'unpacking', err);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }

  /**
   * Collects unused images, least recently used first, while the store is over its limit; then
   * the root filesystems no image names and no container uses, and the blobs no tag reaches.
   */
  collect(): Promise<void> {
    return this.exclusive(async () => {
      const { limit } = this;
      if ((await this.measure()) <= limit) return;
      const unused = [...this.index.images]
        .filter(([ref, image]) => !this.pins.get(ref) && !this.users.get(image.manifest))
        .sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
      for (const [ref, image] of unused) {
        if (this.counters.storeBytes <= limit) break;
        // Asked for again while earlier ones were being removed.
        if (this.pins.get(ref) || this.users.get(image.manifest) || this.index.images.get(ref) !== image) continue;
        this.index.images.delete(ref);
        this.index.save();
        await this.untag(image.tag);
        this.counters.collected++;
        this.log?.info({ image: ref, digest: image.digest, bytes: image.size }, 'image collected (store over its limit)');
        await this.measure();
      }
    });
  }

  /** Removes a layout tag and the blobs nothing reaches any more. */
  private async untag(tag: string): Promise<void> {
    if (![...this.index.images.values()].some((i) => i.tag === tag))
      await run(this.tools.umoci, ['rm', '--image', `${LAYOUT}:${tag}`], { cwd: this.dir, timeoutMs: 60_000 }).catch(() => undefined);
    await this.sweep();
  }

  /** Blobs no tag reaches (a failed or replaced pull) and root filesystems no image names and no container uses. */
  private async sweep(): Promise<void> {
    await run(this.tools.umoci, ['gc', '--layout', LAYOUT], { cwd: this.dir, timeoutMs: 60_000 }).catch(() => undefined);
    const named = new Set([...this.index.images.values()].map((i) => i.manifest));
    for (const hex of fs.readdirSync(path.join(this.dir, 'rootfs'))) {
      const digest = `sha256:${hex}`;
      if (!named.has(digest) && !this.users.get(digest)) fs.rmSync(this.rootfsOf(digest), { recursive: true, force: true });
    }
  }

  /** The store's bytes: every blob once, and each unpacked root filesystem once. */
  private async measure(): Promise<number> {
    const blobs = path.join(this.dir, LAYOUT, 'blobs', 'sha256');
    const names = await fs.promises.readdir(blobs).catch(() => []);
    const sizes = await Promise.all(
      names.map((n) =>
        fs.promises.stat(path.join(blobs, n)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    let total = sizes.reduce((a, b) => a + b, 0);
    const seen = new Map<string, number>();
    for (const image of this.index.images.values()) seen.set(image.manifest, image.rootfsBytes);
    for (const hex of fs.readdirSync(path.join(this.dir, 'rootfs')))
      if (!seen.has(`sha256:${hex}`)) seen.set(`sha256:${hex}`, await diskUsage(path.join(this.dir, 'rootfs', hex)));
    for (const bytes of seen.values()) total += bytes;
    this.counters.storeBytes = total;
    return total;
  }

  private rootfsOf(digest: string): string {
    return path.join(this.dir, 'rootfs', digest.replace(/^sha256:/, ''));
  }

  private count(map: Map<string, number>, key: string, by: number): void {
    const n = (map.get(key) ?? 0) + by;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work, work);
    this.turn = next.catch(() => undefined);
    return next;
  }
}

/** Whether the filesystem holding `dir` has (next to) no room left: under 64 KiB free. */
function fullDisk(dir: string): boolean {
  try {
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize < 64 * 1024;
  } catch {
    return false;
  }
}
