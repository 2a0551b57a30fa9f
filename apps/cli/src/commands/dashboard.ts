/**
 * `arbiter dashboard --api URL [--port N]`: the operators' web UI (apps/dashboard, Next.js) in
 * production mode, talking to the control plane at URL. `arbiter start` runs it too. The
 * production build is made on first use and again whenever the dashboard's sources change (or
 * copied from another checkout of the same sources, see dashboard-build.ts), so a fresh clone
 * needs no separate build step.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Command } from 'commander';
import { untilSignal } from '../signals';
import { DashboardBuilds } from './dashboard-build';

export const DASHBOARD_DIR = path.resolve(__dirname, '../../../dashboard');
const NEXT_BIN = require.resolve('next/dist/bin/next', { paths: [DASHBOARD_DIR] });
const WORKSPACE = path.resolve(DASHBOARD_DIR, '../..');

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of the workspace (the cache folder `arbiter` runs with), not a package
const { cacheDir } = require('../../../../scripts/cache-dir') as { cacheDir: (root: string) => string };

/**
 * Makes the production build when the checkout has none of the current sources: a kept build of
 * the same sources when another checkout made one (see dashboard-build.ts), else `next build`;
 * throws with the build's output on failure.
 */
export function ensureDashboardBuilt(log: (line: string) => void = console.log): void {
  new DashboardBuilds({
    root: WORKSPACE,
    dashboardDir: DASHBOARD_DIR,
    cacheDir: path.join(cacheDir(WORKSPACE), 'dashboard'),
    log,
    build: () => {
      const r = spawnSync(process.execPath, [NEXT_BIN, 'build'], {
        cwd: DASHBOARD_DIR,
        encoding: 'utf8',
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      });
      if (r.status !== 0) throw new Error(`the dashboard build failed:\n${r.stdout}\n${r.stderr}`);
    },
  }).ensure();
}

/** Throws, naming the setting, when the dashboard's port is taken. */
export async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  const free = await new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
  if (!free) throw new Error(`port ${port} is in use; choose another with DASHBOARD_PORT or --dashboard-port`);
}

/** Debian's chromium (or CHROMIUM_PATH): the browser the dashboard's tests and bench drive. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Headless Chromium through playwright-core; a clear error when the package is not installed. */
export async function launchChromium(): Promise<import('playwright-core').Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `the dashboard's browser tests and bench drive Debian's chromium at ${CHROMIUM}, which is not installed (apt-get install chromium; .ci/run installs it)`,
    );
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

export interface RunningDashboard {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Stops the dashboard server `pidFile` names when an `arbiter start` that ended without stopping
 * it (killed, say) left it running: its parent is init and it works in this dashboard's folder.
 * Anything else it names is left alone (the port check then says the port is taken).
 */
export async function stopLeftDashboard(pidFile: string): Promise<void> {
  let pid: number;
  let stat: string;
  let cwd: string;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Next.js renames its process (`next-server (v16...)`): the dashboard's is the one working in its folder.
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return;
  }
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
  const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (parent !== '1' || state === 'Z' || cwd !== fs.realpathSync(DASHBOARD_DIR)) return;
  console.log(`stopping the dashboard server (pid ${pid}) an arbiter start that ended without stopping it left running`);
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 5_000 && fs.existsSync(`/proc/${pid}`); waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (fs.existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
  fs.rmSync(pidFile, { force: true });
}

/**
 * Starts `next start` for the built dashboard; resolves once it serves. `caFile` (or
 * ARBITER_CA_FILE): certificates its server trusts for an https:// control plane.
 */
export async function startDashboard(options: {
  apiUrl: string;
  port: number;
  hostname?: string;
  caFile?: string;
  /** Where its server's process id is kept while it runs (see stopLeftDashboard). */
  pidFile?: string;
}): Promise<RunningDashboard> {
  await assertPortFree(options.port);
  const caFile = options.caFile ?? (process.env.ARBITER_CA_FILE || undefined);
  const args = [NEXT_BIN, 'start', '--port', String(options.port)];
  if (options.hostname) args.push('--hostname', options.hostname);
  const child = spawn(process.execPath, args, {
    cwd: DASHBOARD_DIR,
    env: {
      ...process.env,
      ARBITER_API_URL: options.apiUrl,
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(options.port),
      ...(caFile ? { NODE_EXTRA_CA_CERTS: caFile } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Local:\s+(http:\/\/\S+)/.exec(output);
      if (m && output.includes('Ready in'))
        resolve(m[1].replace('localhost', options.hostname && options.hostname !== '0.0.0.0' ? options.hostname : 'localhost'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the dashboard exited with ${code}:\n${output}`)));
  });
  // From here on its output is the operator's to see (errors only; Next.js logs no requests).
  child.stdout.removeAllListeners('data');
  child.stderr.removeAllListeners('data');
  child.stderr.pipe(process.stderr);
  child.stdout.resume();
  if (options.pidFile && child.pid) {
    fs.mkdirSync(path.dirname(options.pidFile), { recursive: true });
    fs.writeFileSync(options.pidFile, `${child.pid}\n`);
  }
  return {
    url,
    child,
    stop: async () => {
      if (options.pidFile) fs.rmSync(options.pidFile, { force: true });
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** DASHBOARD_PORT (or the flag), 3000 by default. */
export function dashboardPort(flag: string | undefined): number {
  const raw = flag ?? process.env.DASHBOARD_PORT ?? '3000';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DASHBOARD_PORT must be a port number (0-65535); got '${raw}'`);
  return port;
}

export function register(program: Command): void {
  program
    .command('dashboard')
    .description('run the web dashboard against a control plane (builds it first when needed)')
    .option('--api <urls>', "the control plane, or its replicas' URLs comma-separated (ARBITER_API_URL), e.g. http://127.0.0.1:8080")
    .option('--port <n>', 'HTTP port (env DASHBOARD_PORT, default 3000)')
    .option('--hostname <h>', 'interface to listen on (default: all)')
    .action(async (opts: { api?: string; port?: string; hostname?: string }) => {
      const api = opts.api ?? process.env.ARBITER_API_URL;
      if (!api) {
        console.error('--api is required (or set ARBITER_API_URL), e.g. --api http://127.0.0.1:8080');
        process.exitCode = 2;
        return;
      }
      let port: number;
      try {
        port = dashboardPort(opts.port);
      } catch (err) {
        console.error((err as Error).message);
        process.exitCode = 2;
        return;
      }
      ensureDashboardBuilt();
      const dashboard = await startDashboard({ apiUrl: api.replace(/\/+$/, ''), port, hostname: opts.hostname });
      console.log(`Arbiter dashboard on ${dashboard.url} (control plane ${api})`);
      const signal = await untilSignal();
      console.log(`${signal}: stopping`);
      await dashboard.stop();
    });
}
