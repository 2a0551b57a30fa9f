/** `npx arbiter ARGS` typed at the repository's root, in a child process, as a user types it. */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { until } from '@arbiter/test-support';
import { withEnv } from '../../../control-plane/test/support/process';

export const root = path.resolve(__dirname, '../../../..');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `env` is added to this process's environment; a variable set to undefined is left out. */
export function runArbiter(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['arbiter', ...args],
      { cwd: root, encoding: 'utf8', env: withEnv(process.env, env), timeout: 120_000 },
      (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

export const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/** Until the control plane at `url` lists `count` agents. */
export function untilAgents(url: string, token: string, count: number): Promise<void> {
  return until(
    async () =>
      (
        await fetch(`${url}/api/v1/agents`, { headers: { authorization: `Bearer ${token}` } }).then(
          (r) => r.json() as Promise<{ total: number }>,
        )
      ).total === count,
    `${count} agent(s) registered`,
  );
}
