/**
 * What makes a whole-cluster read (GET_STATE, GET_TASKS, GET_AGENTS) cheap when little changed,
 * as a Mesos master answers it from memory: each agent's and task's row is kept by its key while
 * its version stays (operator-state.repository.ts reads only keys and versions, then whole rows
 * for what is new or changed), and so is its message with its JSON and protobuf encodings. An
 * answer holds its lists as FragmentLists; the encodings (operator-encoding.ts) write each
 * fragment's kept bytes instead of encoding tens of thousands of objects again. What a caller
 * sees is chosen per caller before the fragments are taken (view ACLs), so a fragment is the
 * same for everyone who may see it.
 */
import type * as protobuf from 'protobufjs';
import type { Versioned } from './operator-state.repository';

type Obj = Record<string, unknown>;

/** One entity's message: built from its row when asked, its encodings made once. */
export class Fragment {
  private static made = 0;
  /** Unique to this fragment in this process: what an answer's signature names it by. */
  readonly serial = ++Fragment.made;
  private text?: string;
  private readonly bytes = new Map<protobuf.Type, Uint8Array>();

  constructor(private readonly build: () => Obj) {}

  /** The message as a plain object in Mesos's JSON mapping (built anew: objects are not kept). */
  object(): Obj {
    return this.build();
  }

  json(): string {
    return (this.text ??= JSON.stringify(this.build()));
  }

  /** The message encoded as `type`. */
  proto(type: protobuf.Type): Uint8Array {
    let b = this.bytes.get(type);
    if (!b) this.bytes.set(type, (b = type.encode(type.fromObject(this.build())).finish()));
    return b;
  }
}

/** A repeated field of an answer made of fragments. Not JSON itself: the operator encodings write it. */
export class FragmentList {
  constructor(readonly items: readonly Fragment[]) {}

  objects(): Obj[] {
    return this.items.map((f) => f.object());
  }
}

/**
 * What an answer made of fragments is, as one text: the JSON of everything but its
 * FragmentLists, and for those their fragments' serials. Two answers with the same signature
 * encode to the same bytes. Undefined for an answer without fragments.
 */
export function signatureOf(answer: unknown): string | undefined {
  let lists = 0;
  const text = JSON.stringify(answer, function (this: Record<string, unknown>, key: string, v: unknown) {
    const own = this[key];
    if (!(own instanceof FragmentList)) return v;
    lists++;
    return own.items.map((f) => f.serial).join(' ');
  });
  return lists ? text : undefined;
}

interface Entry<R> {
  stamp: string;
  row: R;
  /** The fragment, and what it was built from besides the row (e.g. an agent's usage). */
  fragment?: { extra: string; fragment: Fragment };
}

/**
 * Rows by key, kept while their versions stay. Each read names every current key with its
 * version; rows of keys no longer named are dropped, rows whose version moved are read again.
 */
export class RowCache<R> {
  private entries = new Map<string, Entry<R>>();

  /**
   * The current rows in the order of `versions`: the kept ones, and `read` for the others (a
   * row `read` no longer finds is left out; one read at a newer version is kept at that version).
   */
  async current<V extends Versioned>(versions: V[], read: (keys: string[]) => Promise<Array<R & Versioned>>): Promise<Array<Held<R, V>>> {
    const kept = this.entries;
    const missing = versions.filter((v) => kept.get(v.key)?.stamp !== v.stamp).map((v) => v.key);
    const fresh = new Map<string, Entry<R>>();
    for (const row of missing.length ? await read(missing) : []) fresh.set(row.key, { stamp: row.stamp, row });
    const next = new Map<string, Entry<R>>();
    const out: Array<Held<R, V>> = [];
    for (const v of versions) {
      const old = this.entries.get(v.key);
      const entry = fresh.get(v.key) ?? (old?.stamp === v.stamp ? old : undefined);
      if (!entry) continue;
      next.set(v.key, entry);
      out.push(new Held(v, entry));
    }
    this.entries = next;
    return out;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A current row, and its fragment (built once per version of the row and of `extra`). */
export class Held<R, V> {
  constructor(
    readonly meta: V,
    private readonly entry: Entry<R>,
  ) {}

  get row(): R {
    return this.entry.row;
  }

  fragment(build: (row: R) => Obj, extra = ''): Fragment {
    const kept = this.entry.fragment;
    if (kept?.extra === extra) return kept.fragment;
    const row = this.entry.row;
    const fragment = new Fragment(() => build(row));
    this.entry.fragment = { extra, fragment };
    return fragment;
  }
}
