/**
 * The image store's checkpoint: which references the agent has, the manifest digest each
 * resolved to, its layout tag, size and last use. Written whole to a temporary file and renamed,
 * so a crash leaves the previous index or the new one; a restarted agent reads it back in
 * `recover()` and knows its images without pulling them again. An image's configuration is read
 * from its blobs in the layout.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ImageConfig } from './image';

export interface StoredImage {
  /** The manifest's digest as its registry names it (`sha256:...`), shown with the task. */
  digest: string;
  /** The digest of the OCI manifest in the agent's layout (skopeo converts Docker manifests): names the root filesystem. */
  manifest: string;
  /** Its tag in the shared OCI layout. */
  tag: string;
  /** Bytes of its blobs and unpacked root filesystem (shared layers counted for each image). */
  size: number;
  /** Bytes its unpacked root filesystem takes on disk. */
  rootfsBytes: number;
  /** Milliseconds since the epoch. */
  lastUsed: number;
  config: ImageConfig;
}

interface IndexFile {
  version: 1;
  images: Record<string, StoredImage>;
}

export class ImageIndex {
  readonly images = new Map<string, StoredImage>();

  constructor(private readonly file: string) {}

  /** What the checkpoint holds; an unreadable one is set aside (images are pulled again) rather than stopping the agent. */
  load(): void {
    this.images.clear();
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return;
    }
    try {
      const data = JSON.parse(text) as { images?: Record<string, StoredImage | null> };
      for (const [ref, image] of Object.entries(data.images ?? {}))
        if (typeof image?.digest === 'string' && typeof image.manifest === 'string') this.images.set(ref, image);
    } catch {
      fs.renameSync(this.file, `${this.file}.corrupt`);
    }
  }

  save(): void {
    const data: IndexFile = { version: 1, images: Object.fromEntries(this.images) };
    const tmp = `${this.file}.tmp`;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify(data));
    fs.renameSync(tmp, this.file);
  }
}

/** The image configuration and the bytes of its manifest, config and layers, read from the layout's blobs. */
export function readImage(layout: string, digest: string): { config: ImageConfig; blobBytes: number } {
  const blob = (d: string) => fs.readFileSync(path.join(layout, 'blobs', ...d.split(':')), 'utf8');
  const text = blob(digest);
  const manifest = JSON.parse(text) as { config: { digest: string; size: number }; layers?: Array<{ size: number }> };
  const c = (JSON.parse(blob(manifest.config.digest)) as { config?: Record<string, unknown> }).config ?? {};
  const strings = (v: unknown) => (Array.isArray(v) && v.every((s): s is string => typeof s === 'string') ? v : undefined);
  const config: ImageConfig = {
    env: strings(c.Env) ?? [],
    ...(strings(c.Entrypoint) ? { entrypoint: strings(c.Entrypoint) } : {}),
    ...(strings(c.Cmd) ? { cmd: strings(c.Cmd) } : {}),
    ...(typeof c.WorkingDir === 'string' && c.WorkingDir ? { workingDir: c.WorkingDir } : {}),
    ...(typeof c.User === 'string' && c.User ? { user: c.User } : {}),
  };
  const layers = (manifest.layers ?? []).reduce((n, l) => n + l.size, 0);
  return { config, blobBytes: Buffer.byteLength(text) + manifest.config.size + layers };
}
