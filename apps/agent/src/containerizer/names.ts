/** Names for files and cgroups made from the ids frameworks choose. */

/** The id with every character outside a safe few replaced ('.' and '..' too). */
export const safe = (id: string) => {
  const s = id.replace(/[^A-Za-z0-9._:@-]/g, '_');
  return s === '.' || s === '..' ? s.replace(/\./g, '_') : s;
};
