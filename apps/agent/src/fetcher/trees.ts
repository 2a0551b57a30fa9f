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
 * Bytes copied between turns of the event loop. A copy made of one awaited operation per entry
 * waits a turn of the loop at each, and on a busy agent (20 containers starting) each turn is
 * long: a hit of 8 files took 300 ms that way while its work is under 1 ms. So a copy goes in
 * slices done at once, yielding only between them: a small tree in one go, a large one without
 * holding the loop for more than a slice.
 */
export const SLICE_BYTES = 4 * 1024 * 1024;

/**
 * Copies `tree` into `into` (an existing folder) as a cache hit needs it, in slices of
 * SLICE_BYTES: folders with their modes, files with their modes (the kernel drops set-user and
 * set-group bits of a file given to another owner) and times, links as they are, folders with the
 * tree's times once filled; every entry given to `owner`. Anything else (an archive's fifo, say)
 * goes through `fs.promises.cp`. Node's `cp` checks both paths at every entry, a cost a hit paid
 * for each of a task's files.
 */
async function copyTree(tree: string, into: string, owner: { uid: number; gid: number }): Promise<void> {
  let sliceLeft = SLICE_BYTES;
  const walk = async (from: string, to: string, mode?: number): Promise<void> => {
    for (const d of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, d.name);
      const dest = path.join(to, d.name);
      if (d.isDirectory()) {
        // Its mode once filled (a folder may be read-only).
        fs.mkdirSync(dest);
        await walk(src, dest, fs.statSync(src).mode & 0o7777);
        continue;
      }
      if (d.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dest);
      else if (d.isFile()) {
        // The copy keeps the source's mode; the times are set here.
        fs.copyFileSync(src, dest, fs.constants.COPYFILE_FICLONE);
        const st = fs.statSync(src);
        fs.utimesSync(dest, st.atime, st.mtime);
        sliceLeft -= st.size;
        if (sliceLeft <= 0) {
          sliceLeft = SLICE_BYTES;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } else await fs.promises.cp(src, dest, COPY);
      fs.lchownSync(dest, owner.uid, owner.gid);
    }
    if (mode !== undefined) fs.chmodSync(to, mode);
    fs.lchownSync(to, owner.uid, owner.gid);
    const st = fs.statSync(from);
    fs.utimesSync(to, st.atime, st.mtime);
  };
  await walk(tree, into);
}

/**
 * Gives the folders of `copy` (a copy of `tree`) the times of the tree's (a copy's folders take
 * the time their entries were copied in), deepest first.
 */
async function settle(tree: string, copy: string): Promise<void> {
  for (const d of await fs.promises.readdir(copy, { withFileTypes: true }))
    if (d.isDirectory()) await settle(path.join(tree, d.name), path.join(copy, d.name));
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
