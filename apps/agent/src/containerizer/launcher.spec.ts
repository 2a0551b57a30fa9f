import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { EXIT_STATUS_FILE, launch, LaunchError, type LaunchRequest } from './launcher';

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('launcher', () => {
  let sandbox: string;
  let req: LaunchRequest;
  beforeEach(() => {
    sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-launcher-'));
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    req = {
      frameworkId: 'fw',
      spec: { taskId: 't', name: 't', command: { shell: 'touch ran; echo "$ARBITER_TASK_ID $HOME"; exit 4' }, resources: [] },
      sandbox,
      user: { name: 'me', uid, gid, gids: [gid] },
      switchUser: false,
    };
  });
  afterEach(() => fs.rmSync(sandbox, { recursive: true, force: true }));

  it('holds the task until it is isolated, then runs it in its sandbox and records its exit status', async () => {
    const seen: Array<{ pid: number; ran: boolean }> = [];
    const { child, isolationError } = launch(req, (pid) => seen.push({ pid, ran: fs.existsSync(path.join(sandbox, 'ran')) }));
    expect(isolationError).toBeUndefined();
    expect(seen).toEqual([{ pid: child.pid, ran: false }]);
    expect(await exitOf(child)).toBe(4);
    expect(fs.readFileSync(path.join(sandbox, 'stdout'), 'utf8')).toBe(`t ${sandbox}\n`);
    expect(fs.readFileSync(path.join(sandbox, EXIT_STATUS_FILE), 'utf8').trim()).toBe('4');
  });

  it('never runs a task it could not isolate', async () => {
    const { child, isolationError } = launch(req, () => {
      throw new Error('no cgroup');
    });
    expect(isolationError?.message).toBe('no cgroup');
    expect(await exitOf(child)).toBe(125);
    expect(fs.existsSync(path.join(sandbox, 'ran'))).toBe(false);
  });

  it('says at which step a launch failed', () => {
    expect(() => launch({ ...req, sandbox: path.join(sandbox, 'missing') }, () => undefined)).toThrow(
      new LaunchError(`could not prepare the task: ENOENT: no such file or directory, open '${path.join(sandbox, 'missing', 'stdout')}'`),
    );
  });
});
