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

export type ResourceType = 'scalar' | 'ranges' | 'set';
export type Range = readonly [number, number];

/** One piece of resource as it appears on the wire and in scenario files. */
export interface ResourceEntry {
  name: string;
  value?: number;
  ranges?: Array<[number, number]>;
  set?: string[];
  reservation?: string;
  revocable?: boolean;
  shared?: boolean;
  volume?: string;
}

/** Thrown for malformed resource text or JSON; `position` is a 0-based offset into text. */
export class ResourceParseError extends Error {
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
    this.name = 'ResourceParseError';
  }
}

/** Largest scalar accepted (in the resource's unit): far above any machine, far below 2^53/1000. */
export const MAX_SCALAR = 1e12;
const MAX_RANGE_BOUND = Number.MAX_SAFE_INTEGER;

/** What makes two pieces the same kind. */
export interface ResourceKind {
  readonly name: string;
  readonly type: ResourceType;
  readonly reservation?: string;
  readonly revocable: boolean;
  readonly shared: boolean;
  readonly volume?: string;
}

interface Piece extends ResourceKind {
  /** Scalars: integer thousandths. */
  readonly milli: number;
  /** Ranges: sorted, disjoint, non-adjacent, inclusive. */
  readonly ranges: readonly Range[];
  /** Sets: sorted, unique. */
  readonly items: readonly string[];
  /** Shared pieces: how many copies are held (1 for non-shared). */
  readonly copies: number;
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/**
 * Role paths: segments of letters, digits and `_ . @ + -` separated by `/`. The wire contracts'
 * rule (libs/contracts, Role) is this one without segments starting with `-`; the allocator
 * keeps accepting those, which resources stored before that rule may hold.
 */
const ROLE_RE = /^[A-Za-z0-9_.@+-]+(\/[A-Za-z0-9_.@+-]+)*$/;

function kindKey(p: ResourceKind): string {
  return `${p.name}\u0000${p.type}\u0000${p.reservation ?? ''}\u0000${p.revocable ? 1 : 0}\u0000${p.shared ? 1 : 0}\u0000${p.volume ?? ''}`;
}

/** Converts a non-negative amount to integer thousandths, rejecting NaN, negatives and absurd values. */
export function toMilli(value: unknown, name = 'scalar'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ResourceParseError(
      `invalid scalar value '${typeof value === 'string' ? value : JSON.stringify(value)}' for '${name}': not a finite number`,
    );
  }
  if (value < 0) throw new ResourceParseError(`invalid scalar value '${value}' for '${name}': must not be negative`);
  if (value > MAX_SCALAR) throw new ResourceParseError(`invalid scalar value '${value}' for '${name}': larger than ${MAX_SCALAR}`);
  return Math.round(value * 1000);
}

/** Whether `role` may use a reservation made for `reservation` (the same role or an ancestor). */
export function isReservationUsableBy(reservation: string, role: string): boolean {
  return role === reservation || role.startsWith(reservation + '/');
}

function normaliseRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [b, e] of sorted) {
    const last = out.at(-1);
    if (last && b <= last[1] + 1) last[1] = Math.max(last[1], e);
    else out.push([b, e]);
  }
  return out;
}

function subtractRanges(a: readonly Range[], b: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (const [ab, ae] of a) {
    let start = ab;
    for (const [bb, be] of b) {
      if (be < start || bb > ae) continue;
      if (bb > start) out.push([start, bb - 1]);
      start = Math.max(start, be + 1);
      if (start > ae) break;
    }
    if (start <= ae) out.push([start, ae]);
  }
  return out;
}

function rangesContain(a: readonly Range[], b: readonly Range[]): boolean {
  return b.every(([bb, be]) => a.some(([ab, ae]) => ab <= bb && be <= ae));
}

function rangesEmpty(r: readonly Range[]): boolean {
  return r.length === 0;
}

function pieceEmpty(p: Piece): boolean {
  if (p.shared && p.copies <= 0) return true;
  if (p.type === 'scalar') return p.milli === 0;
  if (p.type === 'ranges') return rangesEmpty(p.ranges);
  return p.items.length === 0;
}

function validateRole(role: unknown, where: string): string {
  if (typeof role !== 'string' || !ROLE_RE.test(role) || role === '*' || role.split('/').some((s) => s === '.' || s === '..')) {
    throw new ResourceParseError(
      `invalid role '${typeof role === 'string' ? role : JSON.stringify(role)}' in ${where}: use names of letters, digits, '_', '.', '@', '+', '-' separated by '/'`,
    );
  }
  return role;
}

function validateName(name: unknown, where: string): string {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw new ResourceParseError(`invalid resource name '${String(name)}' in ${where}`);
  }
  return name;
}

function validateRange(b: unknown, e: unknown, name: string): Range {
  if (!Number.isSafeInteger(b) || !Number.isSafeInteger(e) || (b as number) < 0 || (e as number) > MAX_RANGE_BOUND) {
    throw new ResourceParseError(`invalid range [${String(b)}-${String(e)}] for '${name}': bounds must be non-negative integers`);
  }
  if ((b as number) > (e as number)) {
    throw new ResourceParseError(`invalid range [${String(b)}-${String(e)}] for '${name}': begin is greater than end`);
  }
  return [b as number, e as number];
}

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
        const flags = [p.revocable ? 'revocable' : '', p.shared ? `shared${p.volume ? `:${p.volume}` : ''}` : ''].filter(Boolean).join(',');
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
      if (p.type === 'scalar' && mine.milli < p.milli) return false;
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
      const milli = cap === undefined ? (absentIsUnlimited ? p.milli : 0) : Math.round(Math.min(p.milli, Math.max(0, cap)));
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

function comparePieces(a: Piece, b: Piece): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : kindKey(a) < kindKey(b) ? -1 : kindKey(a) > kindKey(b) ? 1 : 0;
}

/** Adds `p` into `map`; `key` is `kindKey(p)` when the caller has it already. */
function addPiece(map: Map<string, Piece>, p: Piece, key = kindKey(p)): void {
  if (pieceEmpty(p)) return;
  const mine = map.get(key);
  if (!mine) {
    map.set(key, p);
    return;
  }
  if (p.shared) map.set(key, { ...mine, copies: mine.copies + p.copies });
  else if (p.type === 'scalar') map.set(key, { ...mine, milli: mine.milli + p.milli });
  else if (p.type === 'ranges') map.set(key, { ...mine, ranges: normaliseRanges([...mine.ranges, ...p.ranges]) });
  else map.set(key, { ...mine, items: [...new Set([...mine.items, ...p.items])].sort() });
}

/** An entry as it may arrive in JSON: every field still to check. */
type UncheckedEntry = { [K in keyof ResourceEntry]?: unknown };

function pieceFromEntry(input: unknown, where: string): Piece {
  if (input === null || typeof input !== 'object') throw new ResourceParseError(`${where}: expected an object`);
  const entry = input as UncheckedEntry;
  const name = validateName(entry.name, where);
  const kinds = [entry.value !== undefined, entry.ranges !== undefined, entry.set !== undefined].filter(Boolean).length;
  if (kinds !== 1) throw new ResourceParseError(`${where} ('${name}'): give exactly one of value, ranges or set`);
  const reservation =
    entry.reservation === undefined || entry.reservation === null || entry.reservation === '*'
      ? undefined
      : validateRole(entry.reservation, where);
  for (const flag of ['revocable', 'shared'] as const) {
    if (entry[flag] !== undefined && typeof entry[flag] !== 'boolean')
      throw new ResourceParseError(`${where} ('${name}'): '${flag}' must be true or false`);
  }
  if (entry.volume !== undefined && (typeof entry.volume !== 'string' || entry.volume === '')) {
    throw new ResourceParseError(`${where} ('${name}'): 'volume' must be a non-empty string`);
  }
  const base = {
    name,
    reservation,
    revocable: !!entry.revocable,
    shared: !!entry.shared,
    volume: entry.volume,
    copies: 1,
    milli: 0,
    ranges: [] as Range[],
    items: [] as string[],
  };
  if (entry.value !== undefined) return { ...base, type: 'scalar', milli: toMilli(entry.value, name) };
  if (entry.ranges !== undefined) {
    if (!Array.isArray(entry.ranges)) throw new ResourceParseError(`${where} ('${name}'): 'ranges' must be a list of [begin, end] pairs`);
    const ranges = (entry.ranges as unknown[]).map((r) => {
      if (!Array.isArray(r) || r.length !== 2) throw new ResourceParseError(`${where} ('${name}'): each range must be a [begin, end] pair`);
      return validateRange(r[0], r[1], name);
    });
    return { ...base, type: 'ranges', ranges: normaliseRanges(ranges) };
  }
  if (!Array.isArray(entry.set) || entry.set.some((s) => typeof s !== 'string' || s === '')) {
    throw new ResourceParseError(`${where} ('${name}'): 'set' must be a list of non-empty strings`);
  }
  return { ...base, type: 'set', items: [...new Set(entry.set)].sort() };
}

/**
 * Resources from JSON in either scenario form: a shorthand object (`{"cpus": 2, "ports":
 * [[31000, 32000]]}`: unreserved, non-revocable, not shared) or a list of entries.
 */
export function resourcesFromJSON(value: unknown): Resources {
  if (Array.isArray(value)) return Resources.of(value as ResourceEntry[]);
  if (value === null || typeof value !== 'object') {
    throw new ResourceParseError('resources must be an object such as {"cpus": 2, "mem": 1024} or a list of entries');
  }
  const entries: ResourceEntry[] = Object.entries(value as Record<string, unknown>).map(([name, v]) => {
    if (typeof v === 'number') return { name, value: v };
    if (Array.isArray(v) && v.every((r) => Array.isArray(r))) return { name, ranges: v as Array<[number, number]> };
    if (Array.isArray(v)) return { name, set: v as string[] };
    throw new ResourceParseError(`invalid value for '${name}': expected a number, a list of [begin, end] ranges or a list of strings`);
  });
  return Resources.of(entries);
}

/**
 * Parses Mesos's text form: `name[(role)]:value` pieces separated by `;`, where value is a
 * scalar (`4`, `0.5`), ranges (`[31000-32000,33000-33010]`) or a set (`{a,b}`).
 */
export function parseResources(text: string): Resources {
  if (typeof text !== 'string') throw new ResourceParseError('resources text must be a string');
  const entries: ResourceEntry[] = [];
  let offset = 0;
  for (const raw of text.split(';')) {
    const start = offset + (raw.length - raw.trimStart().length);
    offset += raw.length + 1;
    const piece = raw.trim();
    if (piece === '') continue;
    const colon = piece.indexOf(':');
    if (colon < 0) throw new ResourceParseError(`expected 'name:value' at position ${start}, found '${piece}'`, start);
    const head = piece.slice(0, colon).trim();
    const valueText = piece.slice(colon + 1).trim();
    const valuePos = start + colon + 1 + (piece.slice(colon + 1).length - piece.slice(colon + 1).trimStart().length);
    const m = /^([^()\s]+)(?:\(([^()]*)\))?$/.exec(head);
    if (!m) throw new ResourceParseError(`invalid resource name '${head}' at position ${start}`, start);
    const name = m[1];
    if (!NAME_RE.test(name)) throw new ResourceParseError(`invalid resource name '${name}' at position ${start}`, start);
    const role = m[2] === '*' ? undefined : (m[2] as string | undefined);
    if (role !== undefined && !ROLE_RE.test(role))
      throw new ResourceParseError(`invalid role '${role}' for '${name}' at position ${start}`, start);
    const entry: ResourceEntry = { name, ...(role !== undefined ? { reservation: role } : {}) };
    if (valueText.startsWith('[')) {
      if (!valueText.endsWith(']')) throw new ResourceParseError(`unterminated range list for '${name}' at position ${valuePos}`, valuePos);
      const inner = valueText.slice(1, -1).trim();
      entry.ranges =
        inner === ''
          ? []
          : inner.split(',').map((r) => {
              const rm = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(r);
              if (!rm)
                throw new ResourceParseError(
                  `invalid range '${r.trim()}' for '${name}' at position ${valuePos}: expected begin-end`,
                  valuePos,
                );
              return [Number(rm[1]), Number(rm[2])] as [number, number];
            });
    } else if (valueText.startsWith('{')) {
      if (!valueText.endsWith('}')) throw new ResourceParseError(`unterminated set for '${name}' at position ${valuePos}`, valuePos);
      entry.set = valueText
        .slice(1, -1)
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    } else {
      if (!/^\d+(\.\d+)?$|^\.\d+$/.test(valueText)) {
        throw new ResourceParseError(`invalid scalar value '${valueText}' for '${name}' at position ${valuePos}`, valuePos);
      }
      entry.value = Number(valueText);
    }
    try {
      entries.push(entry);
      Resources.of([entry]);
    } catch (err) {
      if (err instanceof ResourceParseError) throw new ResourceParseError(`${err.message} (at position ${start})`, start);
      throw err;
    }
  }
  return Resources.of(entries);
}

/** Parses either form an API accepts: Mesos text, a shorthand object, or a list of entries. */
export function parseResourcesInput(value: unknown): Resources {
  return typeof value === 'string' ? parseResources(value) : resourcesFromJSON(value);
}
