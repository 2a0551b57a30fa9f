/**
 * CSV cells, safe to open in a spreadsheet: a text cell that begins with `=`, `+`, `-`, `@`, a
 * tab or a carriage return is prefixed with `'` so that it is shown as text, never run as a
 * formula (OWASP's CSV injection advice); cells with quotes, commas or line breaks are quoted.
 * Numbers are written as they are.
 */
export function csvCell(v: unknown): string {
  if (typeof v === 'number') return String(v);
  let s = typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(cells: unknown[]): string {
  return cells.map(csvCell).join(',');
}
