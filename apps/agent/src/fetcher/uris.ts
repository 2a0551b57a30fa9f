/**
 * What a fetch URI names (Mesos's CommandInfo.URI): where it comes from, the file it becomes in
 * the sandbox, and whether that is an archive. Paths from the outside world (an `outputFile`, an
 * archive's entry names) are confined to the sandbox here.
 */
import * as path from 'node:path';
import type { FetchUri } from '@arbiter/contracts';

export type Source = { kind: 'http'; url: URL } | { kind: 'file'; path: string };

export type ArchiveKind = 'tar' | 'tar.gz' | 'tar.bz2' | 'tar.xz' | 'zip';

/** A fetch that cannot be done, with what to tell the framework. */
export class FetchError extends Error {}

/**
 * The URI's source: http(s) URLs, `file://` URLs and absolute paths (as Mesos takes them).
 * Anything else (hdfs://, s3://, ftp://, relative paths) is refused with the reason.
 */
export function sourceOf(value: string): Source {
  if (value.startsWith('/')) return { kind: 'file', path: path.normalize(value) };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FetchError('not a URL nor an absolute path');
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return { kind: 'http', url };
  if (url.protocol === 'file:') {
    if (url.host && url.host !== 'localhost') throw new FetchError('a file URI must name a local file (file:///path)');
    return { kind: 'file', path: path.normalize(decodeURIComponent(url.pathname)) };
  }
  throw new FetchError(`the scheme ${url.protocol.slice(0, -1)} is not supported (http, https and file are)`);
}

/** The last segment of the URI's path: the file's name in the sandbox unless `outputFile` says otherwise. */
function baseNameOf(source: Source): string {
  const p = source.kind === 'file' ? source.path : decodeURIComponent(source.url.pathname);
  const name = path.posix.basename(p);
  if (!name || name === '.' || name === '..' || name === '/') throw new FetchError('the URI names no file; give an outputFile');
  return name;
}

/**
 * `rel` under `root`, refused when it is absolute or leaves `root` (`..`). Lexical only:
 * symbolic links are checked where files are placed (see place.ts and extract.ts).
 */
export function confined(root: string, rel: string, what = 'path'): string {
  if (rel.includes('\0')) throw new FetchError(`the ${what} ${JSON.stringify(rel)} holds a NUL byte`);
  if (path.isAbsolute(rel)) throw new FetchError(`the ${what} ${JSON.stringify(rel)} is absolute; it must be relative to the sandbox`);
  const at = path.resolve(root, rel);
  const inside = path.relative(root, at);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside))
    throw new FetchError(`the ${what} ${JSON.stringify(rel)} leaves the sandbox`);
  return at;
}

/** The archive kind by the file's name, as Mesos's fetcher decides; undefined: not one. */
export function archiveKindOf(name: string): ArchiveKind | undefined {
  const n = name.toLowerCase();
  if (n.endsWith('.tar.gz') || n.endsWith('.tgz')) return 'tar.gz';
  if (n.endsWith('.tar.bz2') || n.endsWith('.tbz2')) return 'tar.bz2';
  if (n.endsWith('.tar.xz') || n.endsWith('.txz')) return 'tar.xz';
  if (n.endsWith('.tar')) return 'tar';
  if (n.endsWith('.zip')) return 'zip';
  return undefined;
}

/** Where the URI's file goes in the sandbox (`outputFile`, else its name), confined to it. */
export function targetOf(sandbox: string, uri: FetchUri, source: Source): string {
  return confined(sandbox, uri.outputFile ?? baseNameOf(source), 'outputFile');
}
