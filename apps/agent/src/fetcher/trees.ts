/**
 * Unpacked archives of the fetch cache, so that a cache hit with `extract` copies files instead of
 * running `tar` again: the tree an archive unpacked to (as the user whose cache entry it is, its
 * entries and links checked) is kept under the id of that entry and its content's sha256, and
 * copied (never hard-linked: a task may change its files) into the next sandbox, then given to
 * the task's user. Bounded in bytes, least recently used out first; a tree being copied is pinned.
 * Kept in memory only: the folder is emptied at start.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Tree {
  dir: string;
  entries: number;
  bytes: number;
  pins: number;
}

const COPY = { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, force: true } as const;

export class UnpackedTrees {
  private readonly trees = new Map<string, Tree>();
  private used = 0;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** The id of an archive's tree: whose cache entry, its content, how it is unpacked. */
  static idOf(cacheKey: string, digest: string, kind: string): string {
    return crypto.createHash('sha256').update(`${cacheKey}\0${digest}\0${kind}`).digest('hex');
  }

  /** Bytes held. */
  get size(): number {
    return this.used;
  }

  /**
   * Copies the tree kept for `id` into `into` (an empty folder), everything in it then owned by
   * `owner`; its number of entries, or undefined when none is kept.
   */
  async copyInto(id: string, into: string, owner: { uid: number; gid: number }): Promise<number | undefined> {
    const tree = this.trees.get(id);
    if (!tree) return undefined;
    this.trees.delete(id);
    this.trees.set(id, tree);
    tree.pins++;
    try {
      await copyTree(tree.dir, into, owner);
    } finally {
      tree.pins--;
    }
    return tree.entries;
  }

  /** Keeps a copy of `from` (an archive just unpacked and checked) as `id`'s tree, room permitting. */
  async keep(id: string, from: string, entries: number): Promise<void> {
    if (this.trees.has(id)) return;
    const bytes = sizeOf(from);
    if (bytes > this.maxBytes) return;
    const partial = path.join(this.dir, `${id}.partial-${crypto.randomBytes(4).toString('hex')}`);
    try {
      await fs.promises.cp(from, partial, COPY);
      await settle(from, partial);
    } catch {
      fs.rmSync(partial, { recursive: true, force: true });
      return;
    }
    if (this.trees.has(id)) {
      fs.rmSync(partial, { recursive: true, force: true });
      return;
    }
    this.evict(bytes);
    const dir = path.join(this.dir, id);
    fs.renameSync(partial, dir);
    this.trees.set(id, { dir, entries, bytes, pins: 0 });
    this.used += bytes;
  }

  /** Least recently used trees out until `incoming` more bytes fit (pinned ones stay). */
  private evict(incoming: number): void {
    for (const [id, tree] of [...this.trees]) {
      if (this.used + incoming <= this.maxBytes) return;
      if (tree.pins > 0) continue;
      this.trees.delete(id);
      this.used -= tree.bytes;
      fs.rmSync(tree.dir, { recursive: true, force: true });
    }
  }
}

/**
 * Copies `tree` into `into` (an existing folder, given `mode` when told) as a cache hit needs it,
 * the entries of each folder at once: folders with their modes, files with their modes (the kernel drops set-user and set-group bits of a file given to
 * another owner) and times, links as they are, folders with the tree's times once filled; every
 * entry given to `owner`. Anything else (an archive's fifo, say) goes through `fs.promises.cp`.
 * Node's `cp` checks both paths at every entry, a cost a hit paid for each of a task's files.
 */
async function copyTree(tree: string, into: string, owner: { uid: number; gid: number }, mode?: number): Promise<void> {
  const entries = await fs.promises.readdir(tree, { withFileTypes: true });
  await Promise.all(
    entries.map(async (d) => {
      const from = path.join(tree, d.name);
      const to = path.join(into, d.name);
      if (d.isDirectory()) {
        // Its mode once filled (a folder may be read-only).
        await fs.promises.mkdir(to);
        await copyTree(from, to, owner, (await fs.promises.stat(from)).mode & 0o7777);
        return;
      }
      if (d.isSymbolicLink()) await fs.promises.symlink(await fs.promises.readlink(from), to);
      else if (d.isFile()) {
        // libuv's copy keeps the source's mode; the times are set here.
        await fs.promises.copyFile(from, to, fs.constants.COPYFILE_FICLONE);
        const st = await fs.promises.stat(from);
        await fs.promises.utimes(to, st.atime, st.mtime);
      } else await fs.promises.cp(from, to, COPY);
      await fs.promises.lchown(to, owner.uid, owner.gid);
    }),
  );
  if (mode !== undefined) await fs.promises.chmod(into, mode);
  await fs.promises.lchown(into, owner.uid, owner.gid);
  const st = await fs.promises.stat(tree);
  await fs.promises.utimes(into, st.atime, st.mtime);
}

/**
 * Gives every entry of `copy` (a copy of `tree`) to `owner` when given (links themselves, not what
 * they point to; the kernel drops set-user and set-group bits of files), and its folders the times
 * of the tree's (a copy's folders take the time their entries were copied in), deepest first.
 */
async function settle(tree: string, copy: string, owner?: { uid: number; gid: number }): Promise<void> {
  for (const d of await fs.promises.readdir(copy, { withFileTypes: true })) {
    const at = path.join(copy, d.name);
    if (d.isDirectory()) await settle(path.join(tree, d.name), at, owner);
    else if (owner) await fs.promises.lchown(at, owner.uid, owner.gid);
  }
  if (owner) await fs.promises.lchown(copy, owner.uid, owner.gid);
  const st = await fs.promises.stat(tree);
  await fs.promises.utimes(copy, st.atime, st.mtime);
}

/** The bytes of the files under `dir`. */
function sizeOf(dir: string): number {
  let n = 0;
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, d.name);
    n += d.isDirectory() ? sizeOf(at) : fs.lstatSync(at).size;
  }
  return n;
}
