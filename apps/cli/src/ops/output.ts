/**
 * What the operator commands share: the connection and output flags, running an action with
 * the CLI's errors and exit codes, human or `--json` output, `--watch` re-rendering, and the
 * small formatting of resources, times and durations.
 */
import type { Command } from 'commander';
import type { ConnectionFlags } from './config';
import { connect, type Client } from './client';
import { ApiError, describe, UnreachableError, UsageError } from './errors';

export interface OutputFlags extends ConnectionFlags {
  json?: boolean;
  watch?: boolean | string;
}

/** --master, --token-file, --token, --ca, --profile: where and as whom. */
export function connectionOptions(cmd: Command): Command {
  return cmd
    .option('--master <urls>', "control plane URL, or its replicas' URLs comma-separated (ARBITER_MASTER, config 'master')")
    .option('--token-file <file>', "a file holding the API token (ARBITER_TOKEN_FILE, config 'token-file', ~/.config/arbiter/token)")
    .option('--token <token>', 'the token itself (visible in the process list: prefer --token-file or ARBITER_TOKEN)')
    .option('--ca <file>', "PEM certificate(s) to trust for an https:// master (ARBITER_CA_FILE, config 'ca')")
    .option('--profile <name>', 'a [profile] of ~/.config/arbiter/config (ARBITER_PROFILE)');
}

/** Connection options and --json. */
export function readOptions(cmd: Command): Command {
  return connectionOptions(cmd).option('--json', 'print the API answer as JSON (one document; one per line with --watch)');
}

/** Connection options, --json and --watch [seconds]. */
export function watchOptions(cmd: Command): Command {
  return readOptions(cmd).option('-w, --watch [seconds]', 'print again every few seconds (default 2) until Ctrl-C');
}

/** Runs a command's action: an error prints one line (`arbiter: ...`) and sets the exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      const { line, exitCode } = describe(err);
      console.error(line);
      process.exitCode = exitCode;
    }
  };
}

export { type Client, connect };

/** Prints `data` as JSON with --json, else what `human` makes of it. */
export function emit<T>(flags: OutputFlags, data: T, human: (data: T) => string): void {
  if (flags.json) console.log(flags.watch ? JSON.stringify(data) : JSON.stringify(data, null, 2));
  else console.log(human(data));
}

/** Seconds between renders for --watch; undefined without it. */
export function watchInterval(flags: OutputFlags): number | undefined {
  if (flags.watch === undefined || flags.watch === false) return undefined;
  if (flags.watch === true) return 2;
  const s = Number(flags.watch);
  if (!(s >= 0.1 && s <= 3600)) throw new UsageError(`--watch: '${flags.watch}' must be seconds from 0.1 to 3600`);
  return s;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits `ms`, or less once Ctrl-C was pressed. */
async function pause(ms: number, ctrlC: { stop: boolean }): Promise<void> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (ctrlC.stop) return;
    await sleep(Math.min(100, ms - waited));
  }
}

/** An error a watch waits out: no control plane answering, or one without a leader or database for now. */
const passing = (err: unknown) => err instanceof UnreachableError || (err instanceof ApiError && err.status >= 500);

/**
 * Fetches and prints once, or with --watch again every interval until Ctrl-C, or until `done`
 * says the view has reached its end (a task that ended). On a terminal each render replaces the
 * last; into a pipe, renders follow one another (a blank line between; one JSON line each). While
 * no control plane answers (a restart, a failover) it says so on stderr and keeps asking.
 */
export async function show<T>(
  flags: OutputFlags,
  fetch: () => Promise<T>,
  human: (data: T) => string,
  done?: (data: T) => boolean,
): Promise<void> {
  const interval = watchInterval(flags);
  if (interval === undefined) {
    emit(flags, await fetch(), human);
    return;
  }
  const ctrlC = { stop: false };
  const onSigint = () => (ctrlC.stop = true);
  process.once('SIGINT', onSigint);
  try {
    for (let first = true; !ctrlC.stop; first = false) {
      let data: T;
      try {
        data = await fetch();
      } catch (err) {
        // A watch outlives a control plane that restarts or fails over: say so, and ask again.
        if (!passing(err)) throw err;
        console.error(`${describe(err as Error).line} (asking again in ${interval} s)`);
        await pause(interval * 1000, ctrlC);
        continue;
      }
      if (process.stdout.isTTY && !flags.json) process.stdout.write('\x1b[H\x1b[2J');
      else if (!first && !flags.json) console.log('');
      if (!flags.json) console.log(`${new Date().toISOString().slice(11, 19)}  every ${interval} s (Ctrl-C ends)`);
      emit(flags, data, human);
      if (done?.(data)) return;
      await pause(interval * 1000, ctrlC);
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}

const FIRST = ['cpus', 'mem', 'disk', 'gpus', 'ports'];

/** `{ mem: 8192, cpus: 4 }` -> `cpus:4 mem:8192` (cpus, mem, disk, gpus first; scalars rounded to 3 decimals). */
export function amounts(map: Record<string, unknown> | null | undefined): string {
  if (!map) return '';
  const rank = (k: string) => (FIRST.includes(k) ? FIRST.indexOf(k) : FIRST.length);
  return Object.entries(map)
    .filter(([, v]) => v !== 0)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([k, v]) => `${k}:${typeof v === 'number' ? Math.round(v * 1000) / 1000 : JSON.stringify(v)}`)
    .join(' ');
}

/** How long ago an ISO time was: 42s, 5m, 3h, 2d. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `--since`: a duration back from now (90s, 10m, 2h, 7d) or a date (2026-11-27, ISO 8601) -> ISO time. */
export function parseSince(text: string, flag = '--since', now = Date.now()): string {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  if (m) return new Date(now - Number(m[1]) * UNIT_S[m[2]] * 1000).toISOString();
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const t = Date.parse(text.trim());
    if (!Number.isNaN(t)) return new Date(t).toISOString();
  }
  throw new UsageError(`${flag}: '${text}' must be a duration back from now (90s, 10m, 2h, 7d) or a date (2026-11-27T10:00:00Z)`);
}

/** A whole number flag within bounds. */
export function intFlag(text: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag}: '${text}' must be a whole number from ${min} to ${max}`);
  return n;
}

/** A query string from the defined entries. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;
