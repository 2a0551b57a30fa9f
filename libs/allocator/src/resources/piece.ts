/**
 * The pieces resources are made of, and the rules for them: what makes two pieces the same
 * kind, how amounts of one kind add up and subtract (scalars in integer thousandths, ranges,
 * sets, copies of shared volumes), and how an entry from the wire is checked into a piece.
 * `Resources` (resources.ts) is an immutable bag of these pieces.
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
  /** Disk only: the disk it is on, other than the agent's root disk (Mesos's `disk.source`). */
  source?: DiskSource;
}

/**
 * A disk other than the agent's root disk: PATH (a directory on another filesystem, shared out
 * in any amount) or MOUNT (a filesystem of its own, used only whole: never split, as Mesos's).
 */
export interface DiskSource {
  type: 'PATH' | 'MOUNT';
  root: string;
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
  /** The disk source as `TYPE:root` (see DiskSource). */
  readonly source?: string;
}

export interface Piece extends ResourceKind {
  /** Scalars: integer thousandths. */
  readonly milli: number;
  /** Ranges: sorted, disjoint, non-adjacent, inclusive. */
  readonly ranges: readonly Range[];
  /** Sets: sorted, unique. */
  readonly items: readonly string[];
  /** Shared pieces: how many copies are held (1 for non-shared). */
  readonly copies: number;
}

export const NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/**
 * Role paths: segments of letters, digits and `_ . @ + -` separated by `/`. The wire contracts'
 * rule (libs/contracts, Role) is this one without segments starting with `-`; the allocator
 * keeps accepting those, which resources stored before that rule may hold.
 */
export const ROLE_RE = /^[A-Za-z0-9_.@+-]+(\/[A-Za-z0-9_.@+-]+)*$/;

export function kindKey(p: ResourceKind): string {
  return `${p.name}\u0000${p.type}\u0000${p.reservation ?? ''}\u0000${p.revocable ? 1 : 0}\u0000${p.shared ? 1 : 0}\u0000${p.volume ?? ''}\u0000${p.source ?? ''}`;
}

/** A piece used only whole (a MOUNT disk): never split, contained only by an equal amount. */
export function isAtomic(p: ResourceKind): boolean {
  return p.source?.startsWith('MOUNT:') === true;
}

/** The DiskSource of a piece's `source` key. */
export function diskSourceOf(source: string): DiskSource {
  const i = source.indexOf(':');
  return { type: source.slice(0, i) as DiskSource['type'], root: source.slice(i + 1) };
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

export function subtractRanges(a: readonly Range[], b: readonly Range[]): Range[] {
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

export function rangesContain(a: readonly Range[], b: readonly Range[]): boolean {
  return b.every(([bb, be]) => a.some(([ab, ae]) => ab <= bb && be <= ae));
}

function rangesEmpty(r: readonly Range[]): boolean {
  return r.length === 0;
}

export function pieceEmpty(p: Piece): boolean {
  if (p.shared && p.copies <= 0) return true;
  if (p.type === 'scalar') return p.milli === 0;
  if (p.type === 'ranges') return rangesEmpty(p.ranges);
  return p.items.length === 0;
}

export function validateRole(role: unknown, where: string): string {
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

export function comparePieces(a: Piece, b: Piece): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : kindKey(a) < kindKey(b) ? -1 : kindKey(a) > kindKey(b) ? 1 : 0;
}

/** Adds `p` into `map`; `key` is `kindKey(p)` when the caller has it already. */
export function addPiece(map: Map<string, Piece>, p: Piece, key = kindKey(p)): void {
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

export function pieceFromEntry(input: unknown, where: string): Piece {
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
  let source: string | undefined;
  if (entry.source !== undefined) {
    const src: unknown = entry.source;
    const type: unknown = src !== null && typeof src === 'object' ? (src as Record<string, unknown>).type : undefined;
    const root: unknown = src !== null && typeof src === 'object' ? (src as Record<string, unknown>).root : undefined;
    if (name !== 'disk' || (type !== 'PATH' && type !== 'MOUNT'))
      throw new ResourceParseError(`${where} ('${name}'): 'source' is a disk's, with type PATH or MOUNT`);
    if (typeof root !== 'string' || !root.startsWith('/') || root.length > 4096 || root.includes('\0'))
      throw new ResourceParseError(`${where} ('${name}'): a disk source's root must be an absolute path`);
    source = `${type}:${root}`;
  }
  const base = {
    name,
    source,
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
