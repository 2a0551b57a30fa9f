import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { commandLine, EXIT_STATUS_FILE, hiddenByPrivateTmp, launch, LaunchError, type LaunchRequest } from './launcher';
import { detectNamespaceTools } from './tools';

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

  describe("the agent's installation under a private /tmp", () => {
    const tools = { unshare: '/usr/bin/unshare', mount: '/usr/bin/mount', setpriv: '/usr/bin/setpriv' };
    /** The wrapper's own argument naming the installation to keep (after mount, setpriv, uid, gid, groups and body). */
    const kept = (r: LaunchRequest) => {
      const { file, args } = commandLine(r, {});
      expect(file).toBe(tools.unshare);
      return args[args.indexOf('arbiter-task') + 7];
    };

    it('is named to the wrapper only when a private /tmp or /dev/shm would hide it', () => {
      expect(kept({ ...req, namespace: tools, installation: '/tmp/checkout' })).toBe('/tmp/checkout');
      expect(kept({ ...req, namespace: tools, installation: '/dev/shm/arbiter' })).toBe('/dev/shm/arbiter');
      expect(kept({ ...req, namespace: tools, installation: '/opt/arbiter' })).toBe('');
      expect(kept({ ...req, namespace: tools, installation: '/tmpfoo/arbiter' })).toBe('');
      expect([hiddenByPrivateTmp('/tmp'), hiddenByPrivateTmp('/tmp/'), hiddenByPrivateTmp('/var/tmp/x')]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      // Without a mount namespace /tmp is the host's: nothing to keep, TMPDIR instead.
      const env: NodeJS.ProcessEnv = {};
      expect(commandLine({ ...req, installation: '/tmp/checkout' }, env).args).not.toContain('/tmp/checkout');
      expect(env.TMPDIR).toBe(path.join(sandbox, 'tmp'));
    });

    it('stays readable, and read-only, at its path for a task with a private /tmp (as root)', async () => {
      const found = detectNamespaceTools(process.getuid?.() === 0);
      // Without root there is no private /tmp to hide anything: the wrapper's arguments above are the whole story.
      if (!('tools' in found)) return;
      const installation = fs.mkdtempSync('/tmp/arbiter-installation-');
      const sandboxes: string[] = [];
      try {
        fs.writeFileSync(path.join(installation, 'program'), 'from the installation\n');
        const shell = `cat "${installation}/program" 2>/dev/null || echo hidden; touch "${installation}/written" 2>/dev/null && echo writable || echo not-writable; ls /tmp | wc -l`;
        // Each run in a fresh sandbox outside /tmp, with its private tmp and .shm as the containerizer makes them.
        const run = async (keep: string, parent = '/var/tmp', command = shell) => {
          const dir = fs.mkdtempSync(path.join(parent, 'arbiter-launcher-'));
          sandboxes.push(dir);
          for (const d of ['tmp', '.shm']) fs.mkdirSync(path.join(dir, d));
          const r = {
            ...req,
            sandbox: dir,
            namespace: found.tools,
            installation: keep,
            spec: { ...req.spec, command: { shell: command } },
          };
          const { child } = launch(r, () => undefined);
          await exitOf(child);
          return fs.readFileSync(path.join(dir, 'stdout'), 'utf8');
        };
        // Kept: readable at its path, not writable, and the rest of the host's /tmp still private (only its own path in there).
        expect(await run(installation)).toBe('from the installation\nnot-writable\n1\n');
        expect(fs.existsSync(path.join(installation, 'written'))).toBe(false);
        // Not kept (an installation elsewhere): the private /tmp hides the directory.
        expect(await run('/opt/elsewhere')).toBe('hidden\nnot-writable\n0\n');
        // A sandbox inside the installation (a checkout's own work directory): still the task's to write in.
        const own = 'echo written > "$ARBITER_SANDBOX/mine" && cat "$ARBITER_SANDBOX/mine"';
        expect(await run(installation, installation, own)).toBe('written\n');
      } finally {
        fs.rmSync(installation, { recursive: true, force: true });
        for (const dir of sandboxes) fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
