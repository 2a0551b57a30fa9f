/** The text and JSON forms resources arrive in: Mesos's text, a shorthand object, a list of entries. */
import { NAME_RE, type ResourceEntry, ResourceParseError, ROLE_RE } from './piece';
import { Resources } from './resources';

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
 * Resources in Mesos's JSON form (its `--resources` as JSON): a list of Resource objects such as
 * `{"name": "disk", "type": "SCALAR", "scalar": {"value": 1024}, "role": "db",
 * "disk": {"source": {"type": "MOUNT", "mount": {"root": "/mnt/d1"}}}}`. Disk sources PATH and
 * MOUNT are read (their roots: `path.root`, `mount.root`); every other field is refused.
 */
export function resourcesFromMesosJSON(value: unknown): Resources {
  if (!Array.isArray(value)) throw new ResourceParseError("Mesos's JSON resources are a list of Resource objects");
  return Resources.of(
    value.map((r: unknown, i) => {
      const where = `resource ${i}`;
      if (r === null || typeof r !== 'object') throw new ResourceParseError(`${where}: expected an object`);
      const { name, type, scalar, ranges, set, role, disk, ...rest } = r as Record<string, unknown> & { disk?: MesosDiskInfo | null };
      const extra = Object.keys(rest);
      if (extra.length) throw new ResourceParseError(`${where}: unsupported field '${extra[0]}'`);
      const entry: ResourceEntry = { name: name as string };
      if (type === 'SCALAR') entry.value = (scalar as { value?: number } | undefined)?.value;
      else if (type === 'RANGES')
        entry.ranges = ((ranges as { range?: Array<{ begin: number; end: number }> } | undefined)?.range ?? []).map((x) => [
          x.begin,
          x.end,
        ]);
      else if (type === 'SET') entry.set = (set as { item?: string[] } | undefined)?.item ?? [];
      else throw new ResourceParseError(`${where}: type must be SCALAR, RANGES or SET`);
      if (role !== undefined && role !== '*') entry.reservation = role as string;
      if (disk !== undefined) {
        entry.source = diskSourceOf(disk, where);
      }
      return entry;
    }),
  );
}

interface MesosDiskInfo {
  source?: { type?: string; path?: { root?: string }; mount?: { root?: string } };
}

/** A Mesos DiskInfo's source (PATH or MOUNT with its root), checked as an entry's source by Resources.of. */
function diskSourceOf(disk: MesosDiskInfo | null, where: string): { type: 'PATH' | 'MOUNT'; root: string } {
  const source = disk?.source;
  if (!source) throw new ResourceParseError(`${where}: of disk info, only 'source' is read`);
  const root = source.type === 'MOUNT' ? source.mount?.root : source.path?.root;
  return { type: source.type as 'PATH' | 'MOUNT', root: root ?? '' };
}

/**
 * Parses Mesos's text form: `name[(role)]:value` pieces separated by `;`, where value is a
 * scalar (`4`, `0.5`), ranges (`[31000-32000,33000-33010]`) or a set (`{a,b}`).
 */
export function parseResources(text: string): Resources {
  if (text.trimStart().startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ResourceParseError(`invalid JSON resources: ${(err as Error).message}`);
    }
    return resourcesFromMesosJSON(json);
  }
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
