/** The control plane and agents as a user runs them: `arbiter control-plane` and `arbiter agent` in child processes. */
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { TaskRunner } from '@arbiter/agent';
import { freePort } from '../../src/database/database.embedded';
import { ADMIN_TOKEN } from './admin-token';

const BIN = path.resolve(__dirname, '../../../cli/bin/arbiter.js');

/** `base` with `changes` applied: a value sets a variable, undefined removes it. */
export function withEnv(base: NodeJS.ProcessEnv, changes: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries({ ...base, ...changes }).filter(([, v]) => v !== undefined));
}

export interface ControlPlaneProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** The admin token printed on first start, if one was. */
  token?: string;
  /** Sends SIGINT (Ctrl-C) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the process and resolves once it prints its URL (rejects if it exits first). */
export function spawnControlPlane(env: Record<string, string | undefined>, args: string[] = []): Promise<ControlPlaneProcess> {
  const childEnv = withEnv({ ...process.env, LOG_LEVEL: 'warn' }, env);
  const child = spawn(process.execPath, [BIN, 'control-plane', ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`control plane did not start within 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Arbiter control plane on (http:\/\/\S+)/.exec(out);
      if (m && /admin token:.*\n/.test(out)) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1],
          output: () => out,
          token: /admin token:\s+(arb_\S+)/.exec(out)?.[1],
          stop: async (signal = 'SIGINT') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`control plane exited with ${code} before it started:\n${out}`));
    });
  });
}

/** One control plane on `databaseUrl` and a free port, with the test admin token, allocating every 0.2 s. */
export async function spawnSingleControlPlane(databaseUrl: string): Promise<ControlPlaneProcess> {
  return spawnControlPlane({
    DATABASE_URL: databaseUrl,
    PORT: String(await freePort()),
    ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
    ARBITER_ALLOCATION_INTERVAL: '0.2',
  });
}

/** Runs `arbiter control-plane` expecting it to fail at once; resolves with code and output. */
/**
 * One replica of a highly available control plane on `databaseUrl`, serving and advertising
 * `url`, allocating every 0.2 s on 4 s leader leases; `env` adds to (or overrides) its environment.
 */
export function spawnReplica(databaseUrl: string, url: string, env: Record<string, string> = {}): Promise<ControlPlaneProcess> {
  return spawnControlPlane({
    DATABASE_URL: databaseUrl,
    PORT: new URL(url).port,
    ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
    ARBITER_ADVERTISE_URL: url,
    ARBITER_ALLOCATION_INTERVAL: '0.2',
    ARBITER_LEADER_LEASE: '4',
    LOG_LEVEL: 'warn',
    ...env,
  });
}

/** GETs `route` from the control plane at `base` as the admin, refusing any status but 2xx. */
export async function getAsAdmin<T>(base: string, route: string): Promise<T> {
  const res = await fetch(`${base}${route}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!res.ok) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export function runControlPlaneExpectingFailure(
  env: Record<string, string | undefined>,
  args: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const childEnv = withEnv(process.env, env);
  const child = spawn(process.execPath, [BIN, 'control-plane', ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/** `arbiter agent` in a child process, with the admin token; its output is kept in `log`. */
export class AgentProcess {
  child?: ChildProcess;
  log = '';
  constructor(
    readonly name: string,
    readonly workDir: string,
    private readonly resources: string,
    /** How the resources are given: the text itself, or the path of a file holding it. */
    private readonly resourcesFlag: '--resources' | '--resources-file' = '--resources',
  ) {}
  /** Starts it; `env` adds to its environment (ARBITER_INSECURE_REGISTRIES for a test registry, say). */
  start(master: string, token: string, env: Record<string, string> = {}): void {
    this.child = spawn(
      process.execPath,
      [BIN, 'agent', '--master', master, '--hostname', this.name, this.resourcesFlag, this.resources, '--work-dir', this.workDir],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'info', ARBITER_AGENT_TOKEN: token, ...env } },
    );
    // Spawned with stdout and stderr piped: both streams exist.
    this.child.stdout?.on('data', (c: Buffer) => (this.log += c.toString()));
    this.child.stderr?.on('data', (c: Buffer) => (this.log += c.toString()));
  }
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const c = this.child;
    if (c?.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  }
  /** Kills it and the tasks it left running (a restarted agent would find them). */
  async killWithTasks(): Promise<void> {
    await this.stop('SIGKILL');
    const runner = new TaskRunner(this.workDir, () => undefined, { diskCheckIntervalMs: 0 });
    runner.recover();
    await runner.killAll();
    runner.close();
  }
}

/** A replica's role as its /health says (leader, standby), or undefined while it does not answer. */
export async function replicaRole(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    return ((await res.json()) as { role: string }).role;
  } catch {
    return undefined;
  }
}
