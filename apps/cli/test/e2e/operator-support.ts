/** Running `arbiter` as an operator types it, in a child process, and reading what it prints. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as path from 'node:path';

export const BIN = path.resolve(__dirname, '../../bin/arbiter.js');

export interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `arbiter ARGS` with `env` added to (or, with undefined, removed from) the test's environment. */
export function arbiter(args: string[], env: Record<string, string | undefined> = {}): Promise<Cli> {
  const merged: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: merged, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The JSON the command printed, as the type the caller expects (fails the test with its output when it is none). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the answer's type
export function json<T = Record<string, unknown>>(r: Cli): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
}

/** Every command left running: a failed test leaves none behind (stopAll in afterAll). */
const running = new Set<Running>();

export async function stopAll(): Promise<void> {
  for (const r of running) await r.stop();
}

/** A command left running (`--watch`, `--follow`), its output kept as it comes. */
export class Running {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr?.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    running.add(this);
    void this.exited.then(() => running.delete(this));
  }
  stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGINT');
    return this.exited;
  }
}
