/**
 * Archives unpacked into the sandbox with the system's tools (GNU `tar` -z/-j/-J, Info-ZIP
 * `unzip`), as the task's user. Entry names are listed and refused first when one is absolute or
 * climbs out (`..`); the archive is then unpacked into a staging folder in the sandbox, where
 * every symbolic link is checked to point inside, and only then moved into place.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Reader } from './download';
import type { UnpackedTrees } from './trees';
import { type ArchiveKind, FetchError } from './uris';

const TAR_FLAG: Record<Exclude<ArchiveKind, 'zip'>, string[]> = { tar: [], 'tar.gz': ['-z'], 'tar.bz2': ['-j'], 'tar.xz': ['-J'] };

/** Runs a tool (as `reader` when given); its stdout, or a FetchError with its stderr. */
function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; reader?: Reader; timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      {
        cwd: opts.cwd,
        uid: opts.reader?.uid,
        gid: opts.reader?.gid,
        timeout: opts.timeoutMs,
        signal: opts.signal,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) {
          resolve(stdout);
          return;
        }
        const said = stderr.trim().split('\n').slice(-3).join('; ');
        reject(new FetchError(`${cmd} failed: ${said || err.message}`));
      },
    );
  });
}

/** The archive's entry names. */
async function entriesOf(archive: string, kind: ArchiveKind, reader: Reader | undefined, timeoutMs: number): Promise<string[]> {
  const out =
    kind === 'zip'
      ? await run('unzip', ['-Z1', archive], { reader, timeoutMs })
      : await run('tar', ['-t', ...TAR_FLAG[kind], '-f', archive], { reader, timeoutMs });
  return out.split('\n').filter((n) => n.length > 0);
}

/** How many entries the archive has, once none of their names leaves the folder it is unpacked in; else a FetchError. */
async function safeEntries(archive: string, kind: ArchiveKind, reader: Reader | undefined, timeoutMs: number): Promise<number> {
  const names = await entriesOf(archive, kind, reader, timeoutMs);
  for (const n of names) {
    const why = escapingEntry(n);
    if (why) throw new FetchError(why);
  }
  return names.length;
}

/** An entry name that would land outside the folder it is unpacked in: why, else undefined. */
function escapingEntry(name: string): string | undefined {
  if (name.startsWith('/')) return `the archive entry ${JSON.stringify(name)} is an absolute path`;
  if (name.split(/[\\/]/).includes('..')) return `the archive entry ${JSON.stringify(name)} leaves the sandbox`;
  return undefined;
}

/** Symbolic links under `root` that point outside it: the first found, else undefined. */
function escapingLink(root: string): string | undefined {
  const walk = (dir: string): string | undefined => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, d.name);
      if (d.isSymbolicLink()) {
        const target = fs.readlinkSync(at);
        const to = path.resolve(path.dirname(at), target);
        const rel = path.relative(root, to);
        if (path.isAbsolute(target) || rel.startsWith('..') || path.isAbsolute(rel))
          return `the archive entry ${JSON.stringify(path.relative(root, at))} is a link out of the sandbox (${target})`;
      } else if (d.isDirectory()) {
        const found = walk(at);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(root);
}

/** Moves `from`'s content into `to`, folders merged, files replaced. */
function merge(from: string, to: string): void {
  for (const d of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, d.name);
    const dest = path.join(to, d.name);
    const there = fs.lstatSync(dest, { throwIfNoEntry: false });
    if (there?.isDirectory() && d.isDirectory()) {
      merge(src, dest);
      continue;
    }
    if (there) fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(src, dest);
  }
}

/**
 * Unpacks `archive` into `sandbox` as `reader` (its files are the task user's). `owner`: who
 * owns the staging folder (the task's user). Refuses, before anything lands in the sandbox,
 * entries that escape it. `checked`: the number of entries of this very archive (the same
 * content) when they were listed and found safe before, so they are not listed again. `kept`:
 * where the tree of a cached archive is kept (copied from there when it is, kept there when not).
 */
export async function extract(
  archive: string,
  kind: ArchiveKind,
  sandbox: string,
  owner: { uid: number; gid: number },
  reader: Reader | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
  checked?: number,
  kept?: { trees: UnpackedTrees; id: string },
): Promise<number> {
  const staging = fs.mkdtempSync(path.join(sandbox, '.fetch-'));
  try {
    fs.chownSync(staging, owner.uid, owner.gid);
    // The same archive unpacked before (a cache hit): its tree copied, no tool run.
    let entries = kept && (await kept.trees.copyInto(kept.id, staging, owner));
    if (entries === undefined) {
      entries = checked ?? (await safeEntries(archive, kind, reader, timeoutMs));
      if (kind === 'zip') await run('unzip', ['-q', '-o', archive, '-d', staging], { reader, timeoutMs, signal });
      else await run('tar', ['-x', ...TAR_FLAG[kind], '--no-same-owner', '-f', archive, '-C', staging], { reader, timeoutMs, signal });
      const why = escapingLink(staging);
      if (why) throw new FetchError(why);
      await kept?.trees.keep(kept.id, staging, entries);
    }
    merge(staging, sandbox);
    return entries;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
