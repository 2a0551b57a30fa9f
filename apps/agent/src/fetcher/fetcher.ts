/**
 * The fetcher (Mesos's fetcher): a task's or executor's URIs into its sandbox before it starts,
 * one after the other. Files end up owned by the task's user; local files are read as that user;
 * archives are unpacked as that user (extract.ts). With `cache: true` the file comes through the
 * agent's cache (cache.ts). Any failure is a FetchFailure naming the URI and the error.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FetchUri } from '@arbiter/contracts';
import { FetchCache } from './cache';
import { download, type DownloadLimits, type Reader } from './download';
import { extract } from './extract';
import { SLICE_BYTES, UnpackedTrees } from './trees';
import { archiveKindOf, FetchError, sourceOf, targetOf } from './uris';

export interface FetcherOptions {
  /** Where cached files go (default: `<work dir>/fetch-cache`). */
  cacheDir?: string;
  /** The cache's size in bytes (default 2 GiB, Mesos's --fetcher_cache_size); cached archives' unpacked trees get as much again. */
  cacheBytes?: number;
  /** The most bytes one URI may bring (default 4 GiB). */
  maxBytes?: number;
  /** How long one URI may take, download and extraction (default 10 min). */
  timeoutMs?: number;
  /** Where each URI fetched (or failed) is told, with its size, cache use and time (the agent's log). */
  log?: FetchLog;
}

/** The part of a logger the fetcher uses (pino's shape). */
export interface FetchLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** The user a sandbox belongs to. */
export interface FetchUser {
  name: string;
  uid: number;
  gid: number;
}

export interface FetchedUri {
  uri: string;
  /** Where it landed, relative to the sandbox. */
  file: string;
  bytes: number;
  digest?: string;
  /** Served from the cache without a download. */
  cacheHit: boolean;
  /** Entries unpacked, when it was extracted. */
  extracted?: number;
}

export interface FetchReport {
  uris: FetchedUri[];
  ms: number;
}

/** A fetch that failed: the task ends FAILED with this message. */
export class FetchFailure extends Error {
  constructor(
    readonly uri: string,
    why: string,
  ) {
    super(`could not fetch ${uri}: ${why}`);
  }
}

const DEFAULT_CACHE_BYTES = 2 * 1024 ** 3;
const DEFAULT_MAX_BYTES = 4 * 1024 ** 3;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** How many archives' checked listings are remembered. */
const CHECKED_ARCHIVES = 1024;

export class Fetcher {
  readonly cache: FetchCache;
  /** Cached archives as they unpacked (trees.ts). */
  readonly trees: UnpackedTrees;
  private readonly limits: DownloadLimits;
  private readonly root = (process.getuid?.() ?? 0) === 0;
  private readonly log?: FetchLog;
  /** Archives' contents (kind and sha256) whose entries were listed and found safe: their number of entries. */
  private readonly checkedArchives = new Map<string, number>();

  constructor(workDir: string, options: FetcherOptions = {}) {
    this.cache = new FetchCache(options.cacheDir ?? path.join(workDir, 'fetch-cache'), options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.trees = new UnpackedTrees(path.join(this.cache.dir, 'trees'), options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.log = options.log;
    this.limits = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
  }

  /**
   * Fetches `uris` into `sandbox` (prepared, owned by `user`) in order; the first failure ends it.
   * `signal` ends it early (the task was killed); a download into the cache runs on for others.
   */
  async fetch(uris: readonly FetchUri[], sandbox: string, user: FetchUser, signal?: AbortSignal): Promise<FetchReport> {
    const started = Date.now();
    const done: FetchedUri[] = [];
    const home = fs.realpathSync(sandbox);
    for (const uri of uris) {
      const at = Date.now();
      try {
        signal?.throwIfAborted();
        const fetched = await this.one(uri, home, user, signal);
        this.log?.info({ ...fetched, user: user.name, ms: Date.now() - at }, 'fetched');
        done.push(fetched);
      } catch (e) {
        const failure = new FetchFailure(uri.value, (e as Error).message);
        this.log?.warn({ uri: uri.value, user: user.name, ms: Date.now() - at }, failure.message);
        throw failure;
      }
    }
    return { uris: done, ms: Date.now() - started };
  }

  private async one(uri: FetchUri, sandbox: string, user: FetchUser, signal?: AbortSignal): Promise<FetchedUri> {
    const source = sourceOf(uri.value);
    const target = targetOf(sandbox, uri, source);
    const reader: Reader | undefined = this.root && user.uid !== 0 ? { uid: user.uid, gid: user.gid } : undefined;
    const dir = this.folderFor(sandbox, target, user);
    const tmp = path.join(dir, `.fetching-${crypto.randomBytes(4).toString('hex')}`);
    const cacheKey = FetchCache.keyOf(user.name, uri.value);
    let got: { bytes: number; digest?: string; cacheHit: boolean };
    try {
      if (uri.cache) {
        const handle = await this.cache.get(cacheKey, (into) => download(source, into, this.limits, reader));
        try {
          // A small file at once, as a kept tree is copied (trees.ts); a large one off the event loop.
          if (handle.bytes <= SLICE_BYTES) fs.copyFileSync(handle.file, tmp);
          else await fs.promises.copyFile(handle.file, tmp);
        } finally {
          handle.release();
        }
        got = { bytes: handle.bytes, digest: handle.digest, cacheHit: handle.hit };
      } else {
        got = { ...(await download(source, tmp, { ...this.limits, signal }, reader)), cacheHit: false };
      }
      fs.chownSync(tmp, user.uid, user.gid);
      fs.chmodSync(tmp, uri.executable ? 0o755 : 0o644);
      const there = fs.lstatSync(target, { throwIfNoEntry: false });
      if (there?.isDirectory()) throw new FetchError(`${path.relative(sandbox, target)} is a folder in the sandbox`);
      fs.renameSync(tmp, target);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    const fetched: FetchedUri = { uri: uri.value, file: path.relative(sandbox, target), ...got };
    // As Mesos: an executable file is never unpacked, and `extract` on a non-archive leaves the file as it is.
    const kind = uri.extract && !uri.executable ? archiveKindOf(target) : undefined;
    if (!kind) return fetched;
    // A cached archive's entries were checked when its content (its digest) was first unpacked: not listed again.
    const known = uri.cache && got.digest ? `${kind}:${got.digest}` : undefined;
    const checked = known ? this.checkedArchives.get(known) : undefined;
    // Its unpacked tree is kept with it: a later hit copies it instead of unpacking again.
    const kept = uri.cache && got.digest ? { trees: this.trees, id: UnpackedTrees.idOf(cacheKey, got.digest, kind) } : undefined;
    fetched.extracted = await extract(target, kind, sandbox, user, reader, this.limits.timeoutMs, signal, checked, kept);
    if (known && checked === undefined) this.remember(known, fetched.extracted);
    return fetched;
  }

  /** An archive's content found safe to unpack, with its number of entries (the most recent CHECKED_ARCHIVES kept). */
  private remember(known: string, entries: number): void {
    this.checkedArchives.set(known, entries);
    const [oldest] = this.checkedArchives.keys();
    if (this.checkedArchives.size > CHECKED_ARCHIVES) this.checkedArchives.delete(oldest);
  }

  /** The target's folder, made (owned by the user) where missing; it must resolve inside the sandbox. */
  private folderFor(sandbox: string, target: string, user: FetchUser): string {
    const rel = path.relative(sandbox, path.dirname(target));
    let at = sandbox;
    for (const part of rel ? rel.split(path.sep) : []) {
      at = path.join(at, part);
      const st = fs.lstatSync(at, { throwIfNoEntry: false });
      if (!st) {
        fs.mkdirSync(at, { mode: 0o755 });
        fs.chownSync(at, user.uid, user.gid);
      } else if (!st.isDirectory()) throw new FetchError(`${path.relative(sandbox, at)} in the outputFile is not a folder in the sandbox`);
    }
    return at;
  }
}

/** Mesos ends a task whose fetch failed with this reason (its containerizer's launch failed). */
export const FETCH_FAILED = 'REASON_CONTAINER_LAUNCH_FAILED';

/** What a fetch took, for the STARTING update and the log. */
function describeFetch(report: FetchReport): string {
  const hits = report.uris.filter((u) => u.cacheHit).length;
  const bytes = report.uris.reduce((n, u) => n + u.bytes, 0);
  const n = report.uris.length;
  return `fetched ${n} URI${n === 1 ? '' : 's'} (${bytes} bytes, ${hits} from the cache) in ${report.ms} ms`;
}

/** Fetches, never throwing: the STARTING message, or the failure's (naming the URI and the error). */
export async function fetchInto(
  fetcher: Fetcher,
  uris: readonly FetchUri[],
  sandbox: string,
  user: FetchUser,
  signal?: AbortSignal,
): Promise<{ message: string; report: FetchReport } | { failure: string }> {
  try {
    const report = await fetcher.fetch(uris, sandbox, user, signal);
    return { message: describeFetch(report), report };
  } catch (e) {
    return { failure: e instanceof FetchFailure ? e.message : `could not fetch the URIs: ${(e as Error).message}` };
  }
}
