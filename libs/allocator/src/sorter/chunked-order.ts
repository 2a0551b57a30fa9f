import { compare, type Node } from './node';

/** Leaves per chunk of a flat sorter's order (a chunk is split when it doubles). */
const CHUNK = 64;

/**
 * A flat sorter's order of active leaves, sorted by `compare`, in chunks: moving one client
 * costs about a chunk's size instead of the whole order's.
 */
export class ChunkedOrder {
  readonly chunks: Node[][] = [];

  constructor(nodes: readonly Node[]) {
    for (let i = 0; i < nodes.length; i += CHUNK) this.chunks.push(nodes.slice(i, i + CHUNK));
  }

  toArray(): Node[] {
    return this.chunks.flat();
  }

  /** Takes `leaf` out; it is found by the share and count it was placed with. */
  remove(leaf: Node, share: number, count: number): void {
    const before = (n: Node) => (n.share !== share ? n.share < share : n.count !== count ? n.count < count : n.path < leaf.path);
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = chunks[mid];
      if (before(chunk[chunk.length - 1])) lo = mid + 1;
      else hi = mid;
    }
    let ci = lo;
    let i = -1;
    if (ci < chunks.length) {
      const chunk = chunks[ci];
      let l = 0;
      let h = chunk.length;
      while (l < h) {
        const m = (l + h) >>> 1;
        if (before(chunk[m])) l = m + 1;
        else h = m;
      }
      if (chunk[l] === leaf) i = l;
    }
    if (i < 0) {
      // Not where its key says (should not happen): look for it.
      ci = chunks.findIndex((c) => c.includes(leaf));
      if (ci < 0) return;
      i = chunks[ci].indexOf(leaf);
    }
    const chunk = chunks[ci];
    chunk.splice(i, 1);
    if (chunk.length === 0) chunks.splice(ci, 1);
  }

  /** Puts `leaf` in its place: after every leaf that sorts before it. */
  insert(leaf: Node): void {
    const chunks = this.chunks;
    if (chunks.length === 0) {
      chunks.push([leaf]);
      return;
    }
    // The first chunk that ends with a leaf not before it (else the last chunk).
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = chunks[mid];
      if (compare(chunk[chunk.length - 1], leaf) < 0) lo = mid + 1;
      else hi = mid;
    }
    const chunk = chunks[lo];
    let l = 0;
    let h = chunk.length;
    while (l < h) {
      const m = (l + h) >>> 1;
      if (compare(chunk[m], leaf) < 0) l = m + 1;
      else h = m;
    }
    chunk.splice(l, 0, leaf);
    if (chunk.length > 2 * CHUNK) chunks.splice(lo + 1, 0, chunk.splice(CHUNK));
  }
}
