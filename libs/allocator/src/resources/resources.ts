/**
 * The resource algebra: immutable bags of named scalars (fixed-point, three decimals, as in
 * Mesos), ranges (ports) and sets, each piece unreserved or reserved for a role, optionally
 * revocable or shared (persistent volumes).
 *
 * Two pieces are the same *kind* when (name, type, reservation, revocable, shared, volume) are
 * equal; amounts of one kind add up. Scalars are stored as integer thousandths so that sums
 * never drift. Shared pieces are copies: adding one twice holds two copies of one volume, and a
 * volume's size counts once in quantities.
 */
import {
  addPiece,
  comparePieces,
  diskSourceOf,
  isAtomic,
  isReservationUsableBy,
  kindKey,
  type Piece,
  pieceEmpty,
  pieceFromEntry,
  rangesContain,
  type ResourceEntry,
  type ResourceKind,
  subtractRanges,
  validateRole,
} from './piece';

export class Resources {
  private static readonly EMPTY = new Resources(new Map());
  /** Memoised scalar quantities: the value is immutable, so they are computed once. */
  private milliCache?: Map<string, number>;

  private constructor(private readonly pieces: ReadonlyMap<string, Piece>) {}

  /** True when every piece is unreserved, non-revocable and not shared. */
  isPlain(): boolean {
    for (const p of this.pieces.values()) if (p.reservation !== undefined || p.revocable || p.shared) return false;
    return true;
  }

  static empty(): Resources {
    return Resources.EMPTY;
  }

  /** Builds resources from entries (validated). */
  static of(entries: readonly ResourceEntry[]): Resources {
    const map = new Map<string, Piece>();
    entries.forEach((entry, i) => addPiece(map, pieceFromEntry(entry, `entry ${i}`)));
    return new Resources(map);
  }

  /** Unreserved, non-revocable scalars from a quantities object such as `{cpus: 2, mem: 1024}`. */
  static fromScalars(quantities: Readonly<Record<string, number>> | ReadonlyMap<string, number>): Resources {
    const items: Array<[string, number]> =
      quantities instanceof Map
        ? [...(quantities as ReadonlyMap<string, number>)]
        : Object.entries(quantities as Readonly<Record<string, number>>);
    return Resources.of(items.map(([name, value]) => ({ name, value })));
  }

  isEmpty(): boolean {
    return this.pieces.size === 0;
  }

  /** The resources as a list of entries, in a stable order. */
  entries(): ResourceEntry[] {
    return [...this.pieces.values()].sort(comparePieces).flatMap((p) => {
      const base: ResourceEntry = { name: p.name };
      if (p.type === 'scalar') base.value = p.milli / 1000;
      if (p.type === 'ranges') base.ranges = p.ranges.map(([b, e]) => [b, e]);
      if (p.type === 'set') base.set = [...p.items];
      if (p.reservation !== undefined) base.reservation = p.reservation;
      if (p.revocable) base.revocable = true;
      if (p.shared) base.shared = true;
      if (p.volume !== undefined) base.volume = p.volume;
      if (p.source !== undefined) base.source = diskSourceOf(p.source);
      return p.shared ? Array.from({ length: p.copies }, () => ({ ...base })) : [base];
    });
  }

  toJSON(): ResourceEntry[] {
    return this.entries();
  }

  /** Mesos's text form, e.g. `cpus:4;mem:8192;ports:[31000-32000];cpus(eng):2`. */
  toString(): string {
    return [...this.pieces.values()]
      .sort(comparePieces)
      .map((p) => {
        const role = p.reservation === undefined ? '' : `(${p.reservation})`;
        let value: string;
        if (p.type === 'scalar') value = String(p.milli / 1000);
        else if (p.type === 'ranges') value = `[${p.ranges.map(([b, e]) => `${b}-${e}`).join(',')}]`;
        else value = `{${p.items.join(',')}}`;
        const flags = [
          p.revocable ? 'revocable' : '',
          p.shared ? `shared${p.volume ? `:${p.volume}` : ''}` : '',
          p.source ? p.source.replace(/^(PATH|MOUNT):/, (t) => t.toLowerCase()) : '',
        ]
          .filter(Boolean)
          .join(',');
        const text = `${p.name}${role}:${value}${flags ? `{${flags}}` : ''}`;
        return p.shared && p.copies > 1 ? Array(p.copies).fill(text).join(';') : text;
      })
      .join(';');
  }

  plus(other: Resources): Resources {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    const map = new Map(this.pieces);
    for (const [key, p] of other.pieces) addPiece(map, p, key);
    return new Resources(map);
  }

  /** This minus `other`; amounts that would go below zero disappear instead. */
  minus(other: Resources): Resources {
    if (other === this) return Resources.EMPTY;
    if (other.isEmpty() || this.isEmpty()) return this;
    const map = new Map(this.pieces);
    for (const [key, p] of other.pieces) {
      const mine = map.get(key);
      if (!mine) continue;
      let next: Piece;
      if (p.shared) next = { ...mine, copies: mine.copies - p.copies };
      else if (p.type === 'scalar') next = { ...mine, milli: Math.max(0, mine.milli - p.milli) };
      else if (p.type === 'ranges') next = { ...mine, ranges: subtractRanges(mine.ranges, p.ranges) };
      else next = { ...mine, items: mine.items.filter((i) => !p.items.includes(i)) };
      if (pieceEmpty(next)) map.delete(key);
      else map.set(key, next);
    }
    return new Resources(map);
  }

  contains(other: Resources): boolean {
    if (other === this) return true;
    for (const [key, p] of other.pieces) {
      const mine = this.pieces.get(key);
      if (!mine) return false;
      if (p.shared) {
        if (mine.copies < 1) return false;
        continue;
      }
      if (p.type === 'scalar' && (mine.milli < p.milli || (isAtomic(p) && mine.milli !== p.milli))) return false;
      if (p.type === 'ranges' && !rangesContain(mine.ranges, p.ranges)) return false;
      if (p.type === 'set' && !p.items.every((i) => mine.items.includes(i))) return false;
    }
    return true;
  }

  equals(other: Resources): boolean {
    return this.contains(other) && other.contains(this) && this.sharedCopies() === other.sharedCopies();
  }

  private sharedCopies(): string {
    return [...this.pieces.values()]
      .filter((p) => p.shared)
      .map((p) => `${kindKey(p)}=${p.copies}`)
      .sort()
      .join('|');
  }

  filter(predicate: (kind: ResourceKind) => boolean): Resources {
    const map = new Map<string, Piece>();
    for (const [k, p] of this.pieces) if (predicate(p)) map.set(k, p);
    return map.size === this.pieces.size ? this : new Resources(map);
  }

  unreserved(): Resources {
    return this.filter((p) => p.reservation === undefined);
  }

  /** Reserved resources: for exactly `role` when given, else for any role. */
  reserved(role?: string): Resources {
    return this.filter((p) => p.reservation !== undefined && (role === undefined || p.reservation === role));
  }

  /** What `role` may use: unreserved pieces plus reservations for the role or any ancestor. */
  allocatableTo(role: string): Resources {
    return this.filter((p) => p.reservation === undefined || isReservationUsableBy(p.reservation, role));
  }

  revocable(): Resources {
    return this.filter((p) => p.revocable);
  }

  nonRevocable(): Resources {
    return this.filter((p) => !p.revocable);
  }

  /** The shared scalar pieces with their copies, for the sorters' accounting (empty when none). */
  sharedScalars(): ReadonlyArray<{ key: string; name: string; milli: number; copies: number }> {
    const out: Array<{ key: string; name: string; milli: number; copies: number }> = [];
    for (const [key, p] of this.pieces)
      if (p.shared && p.type === 'scalar') out.push({ key, name: p.name, milli: p.milli, copies: p.copies });
    return out;
  }

  shared(): Resources {
    return this.filter((p) => p.shared);
  }

  nonShared(): Resources {
    return this.filter((p) => !p.shared);
  }

  scalars(): Resources {
    return this.filter((p) => p.type === 'scalar');
  }

  nonScalars(): Resources {
    return this.filter((p) => p.type !== 'scalar');
  }

  names(): Set<string> {
    return new Set([...this.pieces.values()].map((p) => p.name));
  }

  /**
   * Scalar quantities by name, summed over reservations and revocability; a shared volume
   * counts once however many copies are held.
   */
  scalarQuantities(): Map<string, number> {
    const milli = this.scalarMilli();
    const out = new Map<string, number>();
    for (const [name, m] of milli) out.set(name, m / 1000);
    return out;
  }

  /** Scalar quantities by name in integer thousandths (for exact arithmetic). */
  scalarMilli(): ReadonlyMap<string, number> {
    if (this.milliCache) return this.milliCache;
    const out = new Map<string, number>();
    for (const p of this.pieces.values()) {
      if (p.type !== 'scalar') continue;
      out.set(p.name, (out.get(p.name) ?? 0) + p.milli);
    }
    this.milliCache = out;
    return out;
  }

  /** The scalar amount of `name` (all kinds together). */
  get(name: string): number {
    return (this.scalarMilli().get(name) ?? 0) / 1000;
  }

  /**
   * Every scalar piece cut down to `caps` (milli per name): a piece of a capped name keeps at
   * most the cap (and disappears at zero); a name absent from `caps` is kept whole when
   * `absentIsUnlimited`, else dropped. Non-scalar pieces are kept. Returns `this` when
   * nothing is cut.
   */
  capScalars(caps: ReadonlyMap<string, number>, absentIsUnlimited: boolean): Resources {
    let map: Map<string, Piece> | undefined;
    for (const [key, p] of this.pieces) {
      if (p.type !== 'scalar') continue;
      const cap = caps.get(p.name);
      let milli = cap === undefined ? (absentIsUnlimited ? p.milli : 0) : Math.round(Math.min(p.milli, Math.max(0, cap)));
      // A MOUNT disk goes whole or not at all.
      if (isAtomic(p) && milli < p.milli) milli = 0;
      if (milli === p.milli) continue;
      map ??= new Map(this.pieces);
      if (milli > 0) map.set(key, { ...p, milli });
      else map.delete(key);
    }
    return map ? new Resources(map) : this;
  }

  /** Returns a copy with every piece reserved for `role` (or unreserved when `role` is undefined). */
  withReservation(role: string | undefined): Resources {
    if (role !== undefined) validateRole(role, 'reservation');
    const map = new Map<string, Piece>();
    for (const p of this.pieces.values()) addPiece(map, { ...p, reservation: role });
    return new Resources(map);
  }
}
