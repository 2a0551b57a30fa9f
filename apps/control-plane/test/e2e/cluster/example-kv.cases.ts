/**
 * `arbiter example kv` as a user runs it: a temporary cluster of its own, a key-value service
 * that keeps its data on a persistent volume through its server being killed and its agent
 * restarting.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { withEnv } from '../../support/process';

const BIN = path.resolve(__dirname, '../../../../cli/bin/arbiter.js');

describe('arbiter example kv', () => {
  it('finds its data again after its server is killed and after its agent restarts', async () => {
    // On an embedded PostgreSQL server, as a user without DATABASE_URL runs it: on the run's server,
    // the scratch database's DROP DATABASE waits for a checkpoint of the whole server (up to a minute).
    const env = withEnv(process.env, { DATABASE_URL: undefined });
    const child = spawn(process.execPath, [BIN, 'example', 'kv'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, output }).toMatchObject({ code: 0 });
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, string>;
    expect(result.afterKill).toMatch(/^hello from generation 1/);
    expect(result.afterAgentRestart).toBe(result.afterKill);
    expect(output).toContain('created volume kv-data');
  }, 120_000);
});
