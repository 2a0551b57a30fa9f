/**
 * The OCI runtime: `runc` runs each image task. A container's bundle is a folder of its own
 * (`<work dir>/containers/<name>/`): the root filesystem is the image's, read-only and shared,
 * under a writable layer of the container's (overlayfs; a copy where the kernel has none), and
 * config.json (oci-spec.ts). runc itself is started by the launcher's wrapper once that has
 * joined the task's cgroups, and puts the container in cgroups of its own under them (a
 * relative cgroupsPath), so the task's limits hold it, its OOM kills are seen, and its
 * processes are signalled with the task's. Everything a container made goes at its end
 * (`destroy`), and after an agent restart for containers that ended meanwhile.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { fileKey, folderKey, probed, systemTool } from '../tools';
import { CONTAINER_SANDBOX, type OciInput, ociConfig } from './oci-spec';

const run = promisify(execFile);
/** runc's own log (its errors), in the bundle. */
const RUNC_LOG = 'runc.log';
/** Made in the bundle by the container's poststart hook: its process has started. */
const STARTED = 'started';

/** runc and how root filesystems are layered, found at start. */
export interface RuntimeInfo {
  runc: string;
  version: string;
  mount: string;
  umount: string;
}

/** runc when the agent may use it (root, installed), else why images are off. */
export function detectRuntime(root: boolean): { info: RuntimeInfo } | { problem: string } {
  if (!root) return { problem: 'the agent does not run as root, which runc needs' };
  const runc = systemTool('runc');
  const mount = systemTool('mount');
  const umount = systemTool('umount');
  if (!runc) return { problem: 'runc is not installed (apt-get install runc)' };
  if (!mount || !umount) return { problem: 'mount and umount (util-linux) are not installed' };
  return probed(
    `runc ${fileKey(runc)} ${fileKey(mount)} ${fileKey(umount)}`,
    (r: { info: RuntimeInfo } | { problem: string }) => 'info' in r,
    () => {
      try {
        const out = execFileSync(runc, ['--version'], { encoding: 'utf8', timeout: 5000 });
        const version = /runc version (\S+)/.exec(out)?.[1] ?? out.split('\n')[0].trim();
        return { info: { runc, version, mount, umount } };
      } catch (e) {
        return { problem: `runc does not run here (${(e as Error).message.split('\n')[0]})` };
      }
    },
  );
}

export class Runc {
  /** Containers' bundles (their writable layers and root filesystems). */
  private readonly dir: string;
  /** runc's own state (its --root). */
  private readonly state: string;
  /** Whether root filesystems are overlays (else copies of the image's). */
  readonly overlay: boolean;
  /** Commands run in containers so far (their pid files' names). */
  private execs = 0;
  /** The removals under way (see settled). */
  private readonly destroying = new Set<Promise<boolean>>();

  /** `layering`: overlay or copy (default: overlay where the kernel mounts one in the work directory). */
  constructor(
    readonly info: RuntimeInfo,
    workDir: string,
    layering?: 'overlay' | 'copy',
  ) {
    this.dir = path.join(workDir, 'containers');
    this.state = path.join(workDir, 'runc');
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.state, { recursive: true, mode: 0o700 });
    this.overlay = layering ? layering === 'overlay' : this.overlayWorks();
  }

  bundleOf(name: string): string {
    return path.join(this.dir, name);
  }

  /** The containers whose bundles are here (running, or left by an agent that was killed). */
  bundles(): string[] {
    try {
      return fs.readdirSync(this.dir);
    } catch {
      return [];
    }
  }

  /**
   * The container's root filesystem: the image's under a writable layer of the container's
   * (overlay, else a copy), made off the event loop so that many launches overlap.
   */
  async makeRootfs(name: string, imageRootfs: string): Promise<void> {
    const bundle = this.bundleOf(name);
    const rootfs = path.join(bundle, 'rootfs');
    await fs.promises.rm(bundle, { recursive: true, force: true });
    for (const d of ['upper', 'work', 'rootfs']) await fs.promises.mkdir(path.join(bundle, d), { recursive: true, mode: 0o700 });
    await fs.promises.chmod(bundle, 0o711);
    // overlay's options are comma- and colon-separated: paths with those are copied instead.
    const how: [string, string[], string] =
      this.overlay && !/[,:]/.test(imageRootfs + bundle)
        ? [
            this.info.mount,
            ['-t', 'overlay', 'overlay', '-o', `lowerdir=${imageRootfs},upperdir=${bundle}/upper,workdir=${bundle}/work`, rootfs],
            'could not mount the root filesystem',
          ]
        : ['/bin/cp', ['-a', '--reflink=auto', `${imageRootfs}/.`, rootfs], 'could not copy the root filesystem'];
    await run(how[0], how[1], { timeout: 10 * 60_000 }).catch((e: unknown) => {
      const err = e as { stderr?: string; message: string };
      throw new Error(`${how[2]}: ${(err.stderr || err.message).trim()}`);
    });
    // The image's root directory's mode, not the bundle folder's.
    await fs.promises.chmod(rootfs, (await fs.promises.stat(imageRootfs)).mode & 0o7777);
  }

  /** Writes the container's config.json (its root filesystem made) and returns the command line that runs it in the foreground. */
  create(name: string, config: Omit<OciInput, 'rootfs'>): string[] {
    const bundle = this.bundleOf(name);
    const rootfs = path.join(bundle, 'rootfs');
    const startedMark = path.join(bundle, STARTED);
    fs.rmSync(startedMark, { force: true });
    fs.writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(ociConfig({ ...config, rootfs, startedMark })), { mode: 0o600 });
    const log = ['--log', path.join(bundle, RUNC_LOG), '--log-format', 'json'];
    return [this.info.runc, '--root', this.state, ...log, 'run', '--bundle', bundle, '--no-new-keyring', name];
  }

  /**
   * The command line that runs `argv` inside the running container (`runc exec`: in its
   * namespaces and cgroups, as its user, with its environment, in its sandbox), and the file
   * where runc writes the host pid of what it runs (so that a caller giving up can kill it).
   */
  exec(name: string, argv: string[], env: Record<string, string> = {}): { argv: string[]; pidFile: string } {
    const dir = path.join(this.bundleOf(name), 'exec');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pidFile = path.join(dir, `${process.pid}-${++this.execs}.pid`);
    const envs = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    const line = [this.info.runc, '--root', this.state, 'exec', '--pid-file', pidFile, '--cwd', CONTAINER_SANDBOX, ...envs, name, ...argv];
    return { argv: line, pidFile };
  }

  /**
   * Resolves true once runc has started the container's process (its poststart hook's mark is in
   * the bundle), false when `exited` (runc's end) settles first without it.
   */
  whenStarted(name: string, exited: Promise<unknown>): Promise<boolean> {
    const bundle = this.bundleOf(name);
    const started = () => fs.existsSync(path.join(bundle, STARTED));
    return new Promise((resolve) => {
      let watcher: fs.FSWatcher | undefined;
      const settle = (yes: boolean) => {
        watcher?.close();
        resolve(yes);
      };
      try {
        watcher = fs.watch(bundle, (_, file) => file === STARTED && started() && settle(true));
        watcher.on('error', () => undefined);
      } catch {
        // No watch: runc's end says it.
      }
      if (started()) settle(true);
      void exited.then(() => settle(started()));
    });
  }

  /** Why runc could not start the container (its own error, logged in the bundle), if it could not. */
  launchFailure(name: string): string | undefined {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.bundleOf(name), RUNC_LOG), 'utf8');
    } catch {
      return undefined;
    }
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as { level?: string; msg?: string };
        if (entry.level === 'error' && entry.msg?.startsWith('runc run failed: ')) return entry.msg.slice('runc run failed: '.length);
      } catch {
        continue;
      }
    }
    return undefined;
  }

  /** Signals every process of the container (runc's own `kill --all`); false when runc could not (it is gone). */
  async kill(name: string, signal: NodeJS.Signals): Promise<boolean> {
    return run(this.info.runc, ['--root', this.state, 'kill', '--all', name, signal]).then(
      () => true,
      () => false,
    );
  }

  /** Removes the container (killed if still there), its cgroups, mounts and bundle. True once all are gone. */
  destroy(name: string): Promise<boolean> {
    const removal = this.remove(name);
    this.destroying.add(removal);
    void removal.finally(() => this.destroying.delete(removal));
    return removal;
  }

  /**
   * Resolves once every removal under way has ended (an agent stopping waits for its containers'
   * mounts to go), or after `timeoutMs`: a runc that hangs does not hold the agent's stop.
   */
  async settled(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all([...this.destroying]), late]);
    clearTimeout(timer);
  }

  private async remove(name: string): Promise<boolean> {
    const bundle = this.bundleOf(name);
    await run(this.info.runc, ['--root', this.state, 'delete', '--force', name]).catch(() => undefined);
    const rootfs = path.join(bundle, 'rootfs');
    if (this.mounted(rootfs)) {
      const done = await run(this.info.umount, [rootfs]).then(
        () => true,
        () => false,
      );
      // Busy (a process still leaving): detached now, freed when the last one goes.
      if (!done) await run(this.info.umount, ['--lazy', rootfs]).catch(() => undefined);
    }
    try {
      await fs.promises.rm(bundle, { recursive: true, force: true });
      return true;
    } catch {
      return false;
    }
  }

  private mounted(dir: string): boolean {
    try {
      return fs
        .readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .some((l) => l.split(' ')[4] === dir);
    } catch {
      return false;
    }
  }

  /** Whether this kernel mounts an overlay here (tried at start, in the containers' folder; once per file system in a process). */
  private overlayWorks(): boolean {
    return probed(
      `overlay ${fileKey(this.info.mount)} ${folderKey(this.dir)}`,
      (works: boolean) => works,
      () => this.tryOverlay(),
    );
  }

  private tryOverlay(): boolean {
    const probe = fs.mkdtempSync(path.join(this.dir, '.overlay-probe-'));
    try {
      for (const d of ['lower', 'upper', 'work', 'merged']) fs.mkdirSync(path.join(probe, d));
      const at = (d: string) => path.join(probe, d);
      const r = spawnSync(this.info.mount, [
        '-t',
        'overlay',
        'overlay',
        '-o',
        `lowerdir=${at('lower')},upperdir=${at('upper')},workdir=${at('work')}`,
        at('merged'),
      ]);
      if (r.status !== 0) return false;
      spawnSync(this.info.umount, [at('merged')]);
      return true;
    } finally {
      fs.rmSync(probe, { recursive: true, force: true });
    }
  }
}
