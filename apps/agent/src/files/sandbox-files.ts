/**
 * Sandbox files for the control plane (Mesos's files/files.cpp): a directory's entries and a
 * file's bytes from an offset, with every path confined to its sandbox. A path is taken
 * relative to the sandbox; `..` is refused outright, and what the path resolves to (symbolic
 * links followed) must lie inside the sandbox's own real path. The file or directory is then
 * opened and its open descriptor's path (/proc/self/fd) checked again, so a link swapped in
 * between the check and the open cannot lead out either.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILES_BROWSE_MAX, FILES_READ_MAX, type FileEntry, type FilesBrowseReply, type FilesReadReply } from '@arbiter/contracts';

export type FilesErrorCode = 'SANDBOX_PATH_INVALID' | 'SANDBOX_FILE_NOT_FOUND' | 'SANDBOX_NOT_A_FILE';

export class FilesError extends Error {
  constructor(
    readonly code: FilesErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The path relative to the sandbox ('' for the sandbox itself); throws SANDBOX_PATH_INVALID for `..`. */
export function relativeOf(requested: string): string {
  const parts = requested.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new FilesError('SANDBOX_PATH_INVALID', `'${requested}': a sandbox path may not name '..'`);
  return parts.join('/');
}

/**
 * The real path of `requested` inside `sandbox`: throws SANDBOX_PATH_INVALID when it resolves
 * outside it (a symbolic link out), SANDBOX_FILE_NOT_FOUND when it does not exist.
 */
export function confine(sandbox: string, requested: string): string {
  const rel = relativeOf(requested);
  const root = realOrMissing(sandbox, requested);
  const real = realOrMissing(path.join(root, rel), requested);
  if (!inside(root, real)) throw new FilesError('SANDBOX_PATH_INVALID', `'${requested}' leads outside the sandbox`);
  return real;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);

function realOrMissing(p: string, requested: string): string {
  try {
    return fs.realpathSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FilesError('SANDBOX_FILE_NOT_FOUND', `no file '${requested}' in the sandbox`);
    throw err;
  }
}

/** Opens the confined path, then checks where the open descriptor really is (closing it if outside). */
function openConfined(sandbox: string, requested: string, flags: number): number {
  const real = confine(sandbox, requested);
  let fd: number;
  try {
    // Non-blocking: a FIFO a task left in its sandbox must not hold the agent.
    fd = fs.openSync(real, flags | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FilesError('SANDBOX_FILE_NOT_FOUND', `no file '${requested}' in the sandbox`);
    if (code === 'ELOOP') throw new FilesError('SANDBOX_PATH_INVALID', `'${requested}' changed into a link while it was opened`);
    if (code === 'ENOTDIR') throw new FilesError('SANDBOX_FILE_NOT_FOUND', `'${requested}' is not a directory`);
    throw err;
  }
  try {
    const at = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (!inside(fs.realpathSync(sandbox), at)) throw new FilesError('SANDBOX_PATH_INVALID', `'${requested}' leads outside the sandbox`);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/** A directory's entries (sorted by name, at most FILES_BROWSE_MAX), or a file's own entry. */
export function browse(sandbox: string, requested: string): FilesBrowseReply {
  const rel = relativeOf(requested);
  const fd = openConfined(sandbox, requested, fs.constants.O_RDONLY);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isDirectory()) return { entries: [entryOf(rel, st)], truncated: false };
    const names = fs.readdirSync(`/proc/self/fd/${fd}`).sort();
    const entries: FileEntry[] = [];
    for (const name of names.slice(0, FILES_BROWSE_MAX)) {
      try {
        entries.push(entryOf(rel ? `${rel}/${name}` : name, fs.lstatSync(`/proc/self/fd/${fd}/${name}`)));
      } catch {
        // Gone since it was listed.
      }
    }
    return { entries, truncated: names.length > FILES_BROWSE_MAX };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `length` bytes (at most FILES_READ_MAX) of a file from `offset`; offset -1 answers the size as
 * the offset with no data. An offset past the end answers no data (and the size, which tells a
 * follower the file was rotated).
 */
export function read(sandbox: string, requested: string, offset: number, length?: number): FilesReadReply {
  const fd = openConfined(sandbox, requested, fs.constants.O_RDONLY);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new FilesError('SANDBOX_NOT_A_FILE', `'${requested}' is not a file`);
    if (offset < 0) return { data: '', offset: st.size, size: st.size };
    const want = Math.max(0, Math.min(length ?? FILES_READ_MAX, FILES_READ_MAX, st.size - offset));
    const buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const n = fs.readSync(fd, buf, got, want - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return { data: buf.subarray(0, got).toString('base64'), offset, size: st.size };
  } finally {
    fs.closeSync(fd);
  }
}

function entryOf(rel: string, st: fs.Stats): FileEntry {
  const type = st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other';
  return {
    path: rel,
    type,
    size: st.size,
    mtime: Math.floor(st.mtimeMs) / 1000,
    mode: modeString(type, st.mode),
    nlink: st.nlink,
    uid: st.uid,
    gid: st.gid,
  };
}

/** `ls -l`'s mode column. */
export function modeString(type: FileEntry['type'], mode: number): string {
  const kind = { file: '-', directory: 'd', symlink: 'l', other: '?' }[type];
  const bits = ['r', 'w', 'x', 'r', 'w', 'x', 'r', 'w', 'x'].map((c, i) => (mode & (0o400 >> i) ? c : '-'));
  return kind + bits.join('');
}
