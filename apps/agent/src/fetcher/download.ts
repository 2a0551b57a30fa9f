/**
 * One download into a local file: http(s) with redirects, or a local file read as the task's
 * user (`cat` under its uid, so a task reads only what its user may). The content is hashed on
 * the way (sha256) and bounded in size and time.
 */
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FetchError, type Source } from './uris';

export interface DownloadLimits {
  /** The whole download's time (ms). */
  timeoutMs: number;
  /** The most bytes a URI may bring. */
  maxBytes: number;
  /** Ends the download early (its reason is the error). */
  signal?: AbortSignal;
}

/** Who reads local files: the task's user (when the agent may switch to it). */
export interface Reader {
  uid: number;
  gid: number;
}

export interface Downloaded {
  bytes: number;
  /** sha256 of the content, hex. */
  digest: string;
}

const MAX_REDIRECTS = 5;

/** Downloads `source` into `dest` (created, mode 0600); on any failure `dest` is removed and a FetchError says why. */
export async function download(source: Source, dest: string, limits: DownloadLimits, reader?: Reader): Promise<Downloaded> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new FetchError(`timed out after ${limits.timeoutMs / 1000} s`)), limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([abort.signal, limits.signal]) : abort.signal;
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) {
        done(new FetchError(`larger than the agent's limit of ${limits.maxBytes} bytes`));
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  let out: fs.WriteStream | undefined;
  try {
    const body = source.kind === 'http' ? await httpBody(source.url, limits.maxBytes, signal) : localBody(source.path, reader);
    out = fs.createWriteStream(dest, { mode: 0o600 });
    await pipeline(body, meter, out, { signal });
    return { bytes, digest: hash.digest('hex') };
  } catch (e) {
    // A source that fails at once can fail before `dest` is even opened: removed once the stream is closed, never before.
    const stream = out;
    if (stream && !stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
    fs.rmSync(dest, { force: true });
    const cause: unknown = signal.aborted ? signal.reason : e;
    throw cause instanceof FetchError ? cause : new FetchError((cause as Error).message);
  } finally {
    clearTimeout(timer);
  }
}

/** The response body of a GET, redirects followed; a status other than 2xx is an error. */
async function httpBody(url: URL, maxBytes: number, signal: AbortSignal, hops = 0): Promise<Readable> {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(url, { signal }, resolve);
    req.once('error', reject);
  });
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && res.headers.location) {
    res.resume();
    if (hops >= MAX_REDIRECTS) throw new FetchError(`more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(res.headers.location, url);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new FetchError(`redirected to a ${next.protocol} URL`);
    return httpBody(next, maxBytes, signal, hops + 1);
  }
  if (status < 200 || status >= 300) {
    res.resume();
    throw new FetchError(`HTTP ${status} ${res.statusMessage ?? ''}`.trim());
  }
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) {
    res.destroy();
    throw new FetchError(`${length} bytes, larger than the agent's limit of ${maxBytes} bytes`);
  }
  return res;
}

/** A local file's content, read as `reader` when given (its permissions apply), else by the agent. */
function localBody(file: string, reader?: Reader): Readable {
  if (!reader) return fs.createReadStream(file);
  const cat = spawn('cat', ['--', file], { uid: reader.uid, gid: reader.gid, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  cat.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const out = new Transform({
    transform: (chunk, _enc, done) => done(null, chunk),
    flush: (done) => {
      const finish = (code: number | null) =>
        done(code === 0 ? null : new FetchError(stderr.trim().replace(/^cat: /, '') || `could not read ${file}`));
      if (cat.exitCode !== null) finish(cat.exitCode);
      else cat.once('close', finish);
    },
  });
  cat.once('error', (e) => out.destroy(e));
  return cat.stdout.pipe(out);
}
