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
