/**
 * Plain-text tables for a terminal: a header row in capitals, columns two spaces apart, each as
 * wide as its widest cell, numbers right-aligned; the last column is not padded (no trailing
 * blanks). Cells are one line: line breaks and tabs become spaces.
 */
export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  /** Right-aligned (default: right for numbers, left otherwise). */
  align?: 'left' | 'right';
}

const cell = (v: string | number | boolean | null | undefined): string =>
  v === null || v === undefined || v === '' ? '-' : String(v).replace(/[\r\n\t]+/g, ' ');

export function renderTable<T>(columns: Array<Column<T>>, rows: readonly T[]): string {
  const raw = rows.map((r) => columns.map((c) => c.value(r)));
  const cells = raw.map((r) => r.map(cell));
  const right = columns.map(
    (c, i) => c.align === 'right' || (c.align === undefined && raw.length > 0 && raw.every((r) => typeof r[i] === 'number')),
  );
  const headers = columns.map((c) => c.header.toUpperCase());
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => (i === r.length - 1 && !right[i] ? v : right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** Key-value lines for one record: `Key:  value`, keys aligned. */
export function renderFields(fields: Array<[string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(...fields.map(([k]) => k.length)) + 1;
  return fields.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${cell(v)}`).join('\n');
}
