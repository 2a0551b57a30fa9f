/** Formatting for tables and charts: resources, shares, times. */

const MB_UNITS = new Set(['mem', 'disk']);

/** An amount of a resource: mem and disk (MB) in MB/GB/TB, others as numbers. */
export function amount(name: string, value: number): string {
  if (MB_UNITS.has(name)) {
    if (value >= 1024 * 1024) return `${trim(value / 1024 / 1024)} TB`;
    if (value >= 1024) return `${trim(value / 1024)} GB`;
    return `${trim(value)} MB`;
  }
  return trim(value);
}

export function trim(n: number, digits = 2): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A number of bytes in B, KiB, MiB, GiB or TiB. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) [n, i] = [n / 1024, i + 1];
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

export function percent(fraction: number, digits = 1): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

/** `{cpus: 4, mem: 8192}` as "cpus 4, mem 8 GB"; "—" when empty. */
export function scalars(map: Record<string, number> | undefined | null, order = ['cpus', 'gpus', 'mem', 'disk']): string {
  const entries = Object.entries(map ?? {}).sort(([a], [b]) => rank(a, order) - rank(b, order) || a.localeCompare(b));
  return entries.length ? entries.map(([k, v]) => `${k} ${amount(k, v)}`).join(', ') : '—';
}

function rank(name: string, order: string[]): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  });
}

export function time(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', { hour12: false });
}

/** "5 s ago", "3 min ago", ... */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'until stopped';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${trim(seconds / 60, 1)} min`;
  if (seconds < 86400) return `${trim(seconds / 3600, 1)} h`;
  return `${trim(seconds / 86400, 1)} d`;
}

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** The `datetime-local` input value of a date, in local time. */
export function localInput(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
