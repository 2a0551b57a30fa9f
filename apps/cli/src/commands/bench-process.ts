/**
 * What the benchmarks that run the control plane as a child process share: starting it
 * (`arbiter control-plane` with the bench's settings, on a database URL or an embedded server)
 * and reading its CPU time and memory from /proc. ARBITER_BENCH_NODE_ARGS adds node flags for
 * the control plane alone, e.g. '--cpu-prof --cpu-prof-dir=prof'; ARBITER_BENCH_CHILD_OUTPUT=1 shows
 * its output (errors only, unless LOG_LEVEL is given too).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const BIN = path.resolve(__dirname, '../../bin/arbiter.js');

interface ChildControlPlane {
  child: ChildProcess;
  pid: number;
  url: string;
}

/** Starts `arbiter control-plane` with `settings` (environment variables) and resolves once it serves. */
export function startChildControlPlane(databaseUrl: string | undefined, settings: Record<string, string>): Promise<ChildControlPlane> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error', ...settings };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const nodeArgs = (process.env.ARBITER_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'control-plane'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      if (process.env.ARBITER_BENCH_CHILD_OUTPUT) process.stderr.write(c);
      const m = /Arbiter control plane on (http:\/\/\S+)/.exec(out);
      // Output means the process runs, so it has a pid.
      if (m && /admin token:.*\n/.test(out) && child.pid !== undefined) resolve({ child, pid: child.pid, url: m[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      reject(new Error(`control plane exited with ${code}:\n${out}`));
      // Once serving, it only exits when stopped: anything else ends the bench, which would
      // otherwise wait for answers that never come.
      if (!stopping.has(child)) {
        console.error(`the control plane exited during the bench (${signal ?? `code ${code}`}):\n${out.slice(-4000)}`);
        process.exit(2);
      }
    });
  });
}

/** Children being stopped on purpose. */
const stopping = new WeakSet<ChildProcess>();

/** Stops the child with `signal` and waits for it to exit. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  stopping.add(child);
  child.kill(signal);
  await exited;
}

/** The p-th percentile of values sorted ascending (NaN when there are none). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = fs
    .readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  // After the command: state is field 3, utime 14 and stime 15 (in clock ticks, 100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of the process, in MiB. */
export function residentMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** The control plane's /metrics, scraped once with `token`: each series (a name, with its labels if it has any) by its value. */
export async function scrape(base: URL, token: string): Promise<(series: string) => number> {
  const text = await (await fetch(new URL('/metrics', base), { headers: { authorization: `Bearer ${token}` } })).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return (series) => values.get(series) ?? 0;
}

/** One series of the control plane's /metrics, 0 when absent. */
export async function metric(base: URL, token: string, series: string): Promise<number> {
  return (await scrape(base, token))(series);
}

/** How allocation cycles held the control plane's event loop: slice counts so far (see `loopHold`). */
interface SliceCounts {
  slices: number;
  within2ms: number;
  within5ms: number;
}

/** Slice counts in one scrape (read apart, a slice observed between two reads would count as a long one). */
export function sliceCounts(series: (name: string) => number): SliceCounts {
  const name = 'arbiter_allocation_cycle_slice_seconds';
  return {
    slices: series(`${name}_count`),
    within2ms: series(`${name}_bucket{le="0.002"}`),
    within5ms: series(`${name}_bucket{le="0.005"}`),
  };
}

/** Slices between two readings, and how many held the loop longer than 2 and 5 ms. */
export function loopHold(before: SliceCounts, after: SliceCounts): { slices: number; over2ms: number; over5ms: number } {
  const slices = after.slices - before.slices;
  return {
    slices,
    over2ms: slices - (after.within2ms - before.within2ms),
    over5ms: slices - (after.within5ms - before.within5ms),
  };
}

/** A simulated agent's socket.io connection to the control plane, once connected (closed if it cannot). */
export async function connectAgentSocket(url: string, token: string) {
  const { io } = await import('socket.io-client');
  const s = io(`${url}/agents`, { auth: { token }, transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', (err) => {
      s.close();
      reject(err);
    });
  });
  return s;
}
