/**
 * Sandbox files and log rotation with real processes: the agent answers the control plane's
 * filesBrowse and filesRead for a running task's sandbox (a link the task made out of it
 * refused), and rotates the task's stdout by size while the task writes it, keeping the count.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchOf } from '../../support/fake-control-plane';
import { agentBed } from '../../support/test-agents';
import { until as untilWithin } from '@arbiter/test-support';

const until = (check: () => boolean | Promise<boolean>, what: string) => untilWithin(check, 20_000, what);

describe('sandbox files and log rotation (real processes)', () => {
  const bed = agentBed('arbiter-files-');

  it("answers browse and read for a task's sandbox, refuses a link out of it, and rotates its stdout past the size, keeping two", async () => {
    const agent = bed.agentOn(path.join(bed.dir, 'work'), { logs: { maxBytes: 2000, keep: 2, intervalMs: 100 } });
    await until(() => bed.cp.registered, 'the agent registered');
    // 100-byte lines, 20 a second, for a long while: past 2000 bytes every 100 ms check or so.
    bed.cp.launch(launchOf('chatty', `ln -s /etc/passwd leak; i=0; while true; do i=$((i+1)); printf '%099d\\n' $i; sleep 0.05; done`));
    await until(() => bed.cp.states('chatty').includes('RUNNING'), 'the task running');
    const sandbox = agent.tasks.sandboxOf('fw', 'chatty');
    await until(() => fs.existsSync(path.join(sandbox, 'stdout.2')), 'stdout rotated twice');
    await until(() => {
      const size = fs.statSync(path.join(sandbox, 'stdout.1')).size;
      return size > 2000 && size % 100 === 0;
    }, 'a whole rotated log');
    expect(fs.existsSync(path.join(sandbox, 'stdout.3'))).toBe(false);

    const listing = (await bed.cp.call('filesBrowse', { frameworkId: 'fw', taskId: 'chatty', path: '/' })) as {
      ok: boolean;
      entries: Array<{ path: string; type: string }>;
    };
    expect(listing.ok).toBe(true);
    expect(listing.entries.map((e) => e.path)).toEqual(expect.arrayContaining(['stdout', 'stdout.1', 'stdout.2', 'stderr', 'leak']));
    expect(listing.entries.find((e) => e.path === 'leak')?.type).toBe('symlink');

    const read = (await bed.cp.call('filesRead', { frameworkId: 'fw', taskId: 'chatty', path: 'stdout.1', offset: 0, length: 100 })) as {
      ok: boolean;
      data: string;
    };
    expect(read.ok).toBe(true);
    expect(Buffer.from(read.data, 'base64').toString()).toMatch(/^\d{99}\n$/);

    const refused = await bed.cp.call('filesRead', { frameworkId: 'fw', taskId: 'chatty', path: 'leak' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'SANDBOX_PATH_INVALID' } });
    const missing = await bed.cp.call('filesRead', { frameworkId: 'fw', taskId: 'other', path: 'stdout' });
    expect(missing).toMatchObject({
      ok: false,
      error: {
        code: 'SANDBOX_FILE_NOT_FOUND',
        message: "task other has no sandbox on this agent (an ended task's sandbox is removed after the agent's GC delay)",
      },
    });
  }, 60_000);
});
