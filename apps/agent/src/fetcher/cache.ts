/**
 * The agent's fetch cache (Mesos's fetcher cache): files keyed by a digest of (user, URI), so a
 * URI one user may read is never served to another; their content's sha256 is recorded. Bounded
 * in bytes, least recently used out first; a file being copied out is pinned and never evicted.
 * Concurrent requests of one key share one download. The index lives in memory, rebuilt from
 * the directory at start (oldest modification first).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Downloaded } from './download';

interface Entry {
  key: string;
  file: string;
  bytes: number;
  digest?: string;
  pins: number;
  /** In the index (false: too large to keep; removed once unpinned). */
  kept: boolean;
}

/** A cached file, pinned until released. */
export interface CacheHandle {
  file: string;
  bytes: number;
  digest?: string;
  /** Whether it was there already (no download). */
  hit: boolean;
  release(): void;
}

export class FetchCache {
  private readonly entries = new Map<string, Entry>();
  private readonly filling = new Map<string, Promise<Entry>>();
  private used = 0;
  /** Downloads made (a hit or a shared download counts none). */
  downloads = 0;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const found: Array<{ key: string; bytes: number; mtime: number }> = [];
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      // Downloads a stopped agent left unfinished go; anything else not named by a key is not the cache's.
      if (/^[0-9a-f]{64}\.partial-[0-9a-f]+$/.test(name)) fs.rmSync(file, { force: true });
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const st = fs.statSync(file);
      found.push({ key: name, bytes: st.size, mtime: st.mtimeMs });
    }
    for (const f of found.sort((a, b) => a.mtime - b.mtime))
      this.add({ key: f.key, file: path.join(dir, f.key), bytes: f.bytes, pins: 0, kept: true });
    this.evict(0);
  }

  /** The cache key of a URI as a user fetches it. */
  static keyOf(user: string, uri: string): string {
    return crypto.createHash('sha256').update(`${user}\0${uri}`).digest('hex');
  }

  /** Bytes held. */
  get size(): number {
    return this.used;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The key's file, downloaded by `fill` into the temporary path it is given when absent. */
  async get(key: string, fill: (tmp: string) => Promise<Downloaded>): Promise<CacheHandle> {
    const present = this.entries.get(key);
    if (present) {
      // Most recently used: last in the map's order.
      this.entries.delete(key);
      this.entries.set(key, present);
      touch(present.file);
      return this.pin(present, true);
    }
    let pending = this.filling.get(key);
    if (!pending) {
      pending = this.fill(key, fill).finally(() => this.filling.delete(key));
      this.filling.set(key, pending);
    }
    return this.pin(await pending, false);
  }

  private async fill(key: string, fill: (tmp: string) => Promise<Downloaded>): Promise<Entry> {
    const tmp = path.join(this.dir, `${key}.partial-${crypto.randomBytes(4).toString('hex')}`);
    this.downloads++;
    const got = await fill(tmp).catch((e: unknown) => {
      fs.rmSync(tmp, { force: true });
      throw e;
    });
    const entry: Entry = { key, file: tmp, bytes: got.bytes, digest: got.digest, pins: 0, kept: false };
    if (got.bytes > this.maxBytes) return entry;
    this.evict(got.bytes);
    entry.file = path.join(this.dir, key);
    fs.renameSync(tmp, entry.file);
    entry.kept = true;
    this.add(entry);
    return entry;
  }

  private add(entry: Entry): void {
    this.entries.set(entry.key, entry);
    this.used += entry.bytes;
  }

  /** Least recently used files out until `incoming` more bytes fit (pinned ones stay). */
  private evict(incoming: number): void {
    for (const entry of [...this.entries.values()]) {
      if (this.used + incoming <= this.maxBytes) return;
      if (entry.pins > 0) continue;
      this.entries.delete(entry.key);
      this.used -= entry.bytes;
      fs.rmSync(entry.file, { force: true });
    }
  }

  private pin(entry: Entry, hit: boolean): CacheHandle {
    entry.pins++;
    let released = false;
    return {
      file: entry.file,
      bytes: entry.bytes,
      digest: entry.digest,
      hit,
      release: () => {
        if (released) return;
        released = true;
        entry.pins--;
        if (entry.pins === 0 && !entry.kept) fs.rmSync(entry.file, { force: true });
      },
    };
  }
}

function touch(file: string): void {
  const now = new Date();
  try {
    fs.utimesSync(file, now, now);
  } catch {
    // Only the order after a restart depends on it.
  }
}
