/**
 * Names for files and cgroups made from the ids frameworks choose. An id may be 255 characters
 * of anything the contract allows, more than a file name can hold once a suffix is added, so
 * every name is bounded: the agent's private files keep a short readable prefix and a hash;
 * what other users of the machine can see (cgroups in /proc/<pid>/cgroup, sandbox paths) is a
 * hash alone, so it reveals nothing of a framework's task ids.
 */
import * as crypto from 'node:crypto';

const PREFIX = 40;

/** The id with every character outside a safe few replaced ('.' and '..' too). */
export const safe = (id: string) => {
  const s = id.replace(/[^A-Za-z0-9._:@-]/g, '_');
  return s === '.' || s === '..' ? s.replace(/\./g, '_') : s;
};

const digest = (ids: string[], length: number) => crypto.createHash('sha256').update(ids.join('\u0000')).digest('hex').slice(0, length);

/** A private file name for `id`: its first characters made safe, then a hash of all of it (at most 57 characters). */
export const fileName = (id: string) => `${safe(id).slice(0, PREFIX)}-${digest([id], 16)}`;

/** A name that others may see: a hash of the ids alone. */
export const hiddenName = (...ids: string[]) => digest(ids, 24);
