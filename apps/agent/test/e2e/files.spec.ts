/**
 * Sandbox files and log rotation with real processes: the agent answers the control plane's
 * filesBrowse and filesRead for a running task's sandbox (a link the task made out of it
 * refused), and rotates the task's stdout by size while the task writes it, keeping the count.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../src/agent';
import { FakeControlPlane, launchOf } from '../support/fake-control-plane';
import { stopAgents, testAgent } from '../support/test-agents';
import { until as untilWithin } from '@arbiter/test-support';

const until = (check: () => boolean | Promise<boolean>, what: string) => untilWithin(check, 20_000, what);

describe('sandbox files and log rotation (real processes)', () => {
  let dir: string;
  let cp: FakeControlPlane;
  const agents: Agent[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-files-'));
    fs.chmodSync(dir, 0o711);
    cp = await FakeControlPlane.start();
  });
  afterEach(async () => {
    await stopAgents(agents);
    await cp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("answers browse and read for a task's sandbox, refuses a link out of it, and rotates its stdout past the size, keeping two", async () => {
    const agent = testAgent(cp, path.join(dir, 'work'), { logs: { maxBytes: 2000, keep: 2, intervalMs: 100 } });
    agents.push(agent);
    agent.start();
    await until(() => cp.registered, 'the agent registered');
    // 100-byte lines, 20 a second, for a long while: past 2000 bytes every 100 ms check or so.
    cp.launch(launchOf('chatty', `ln -s /etc/passwd leak; i=0; while true; do i=$((i+1)); printf '%099d\\n' $i; sleep 0.05; done`));
    await until(() => cp.states('chatty').includes('RUNNING'), 'the task running');
    const sandbox = agent.tasks.sandboxOf('fw', 'chatty');
    await until(() => fs.existsSync(path.join(sandbox, 'stdout.2')), 'stdout rotated twice');
    await until(() => {
      const size = fs.statSync(path.join(sandbox, 'stdout.1')).size;
      return size > 2000 && size % 100 === 0;
    }, 'a whole rotated log');
    expect(fs.existsSync(path.join(sandbox, 'stdout.3'))).toBe(false);

    const listing = (await cp.call('filesBrowse', { frameworkId: 'fw', taskId: 'chatty', path: '/' })) as {
      ok: boolean;
      entries: Array<{ path: string; type: string }>;
    };
    expect(listing.ok).toBe(true);
    expect(listing.entries.map((e) => e.path)).toEqual(expect.arrayContaining(['stdout', 'stdout.1', 'stdout.2', 'stderr', 'leak']));
    expect(listing.entries.find((e) => e.path === 'leak')?.type).toBe('symlink');

    const read = (await cp.call('filesRead', { frameworkId: 'fw', taskId: 'chatty', path: 'stdout.1', offset: 0, length: 100 })) as {
      ok: boolean;
      data: string;
    };
    expect(read.ok).toBe(true);
    expect(Buffer.from(read.data, 'base64').toString()).toMatch(/^\d{99}\n$/);

    const refused = await cp.call('filesRead', { frameworkId: 'fw', taskId: 'chatty', path: 'leak' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'SANDBOX_PATH_INVALID' } });
    const missing = await cp.call('filesRead', { frameworkId: 'fw', taskId: 'other', path: 'stdout' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'SANDBOX_FILE_NOT_FOUND' } });
  }, 60_000);
});
