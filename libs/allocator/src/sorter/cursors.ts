/** Reading a sorter's order one client at a time. */
import type { Node } from './node';

/** Clients in order, one at a time (see `DRFSorter.cursor`). */
export interface SortCursor {
  /** The next client, or undefined at the end. */
  next(): string | undefined;
  /** A copy of the clients not yet read. */
  rest(): string[];
}

/** A cursor over an array (read in place, so it sees the array as it is when read). */
export class ArrayCursor implements SortCursor {
  private i = 0;
  constructor(private readonly items: readonly string[]) {}
  next(): string | undefined {
    return this.i < this.items.length ? this.items[this.i++] : undefined;
  }
  rest(): string[] {
    return this.items.slice(this.i);
  }
}

/** A lazy pre-order walk of a sorter's tree, listing active client leaves. */
export class TreeCursor implements SortCursor {
  private readonly stack: Node[] = [];
  private readonly index: number[] = [];
  constructor(root: Node) {
    this.stack.push(root);
    this.index.push(0);
  }
  next(): string | undefined {
    const stack = this.stack;
    const index = this.index;
    while (stack.length > 0) {
      const top = stack.length - 1;
      const children = stack[top].children;
      const i = index[top];
      if (i >= children.length) {
        stack.pop();
        index.pop();
        continue;
      }
      index[top] = i + 1;
      const child = children[i];
      if (child.isClient) {
        if (child.active) return child.client;
      } else {
        stack.push(child);
        index.push(0);
      }
    }
    return undefined;
  }
  rest(): string[] {
    const out: string[] = [];
    for (let c = this.next(); c !== undefined; c = this.next()) out.push(c);
    return out;
  }
}

/** A cursor over a flat sorter's chunked order (read in place). */
export class ChunkCursor implements SortCursor {
  private c = 0;
  private i = 0;
  constructor(private readonly chunks: readonly Node[][]) {}
  next(): string | undefined {
    while (this.c < this.chunks.length) {
      const chunk = this.chunks[this.c];
      if (this.i < chunk.length) return chunk[this.i++].client;
      this.c++;
      this.i = 0;
    }
    return undefined;
  }
  rest(): string[] {
    const out: string[] = [];
    for (let c = this.next(); c !== undefined; c = this.next()) out.push(c);
    return out;
  }
}
