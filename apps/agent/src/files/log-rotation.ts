/**
 * Task logs rotated by size with a kept count (Mesos's logrotate container logger), by copy and
 * truncate on a timer: tasks write `stdout` and `stderr` in append mode, so once a file is
 * truncated their next write lands at its start, and no process sits between a task and its
 * log. Past `maxBytes`, `stdout.1` becomes `stdout.2` (and so on, the oldest beyond `keep`
 * dropped), `stdout` is copied to `stdout.1` and truncated. What a task writes between the copy
 * and the truncation is lost (copytruncate's known cost, bounded by one check's interval of
 * output); a log can outgrow `maxBytes` by what is written within one interval.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LogRotationOptions {
  /** Rotate a log past this size in bytes (0 or absent: never). */
  maxBytes?: number;
  /** Rotated files kept (default 5). */
  keep?: number;
  /** How often logs are checked (default 10 s). */
  intervalMs?: number;
}

const LOGS = ['stdout', 'stderr'];
const DEFAULT_KEEP = 5;
const DEFAULT_INTERVAL_MS = 10_000;

export class LogRotation {
  private readonly timer?: NodeJS.Timeout;
  readonly maxBytes: number;
  readonly keep: number;
  private checking = false;

  /** `sandboxes`: the sandboxes of the tasks and executors running now. */
  constructor(
    private readonly sandboxes: () => Iterable<string>,
    options: LogRotationOptions = {},
    private readonly onError: (message: string, err: Error) => void = () => undefined,
  ) {
    this.maxBytes = options.maxBytes ?? 0;
    this.keep = Math.max(1, options.keep ?? DEFAULT_KEEP);
    if (this.maxBytes > 0) {
      this.timer = setInterval(() => void this.check(), options.intervalMs ?? DEFAULT_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /**
   * Rotates every log past its size in the running sandboxes (and their tasks' folders, for a
   * default executor's), one file at a time with the event loop let go between them, so that a
   * large copy does not hold heartbeats and launches; a check still running skips the next tick.
   */
  async check(): Promise<void> {
    if (this.maxBytes <= 0 || this.checking) return;
    this.checking = true;
    try {
      for (const sandbox of [...this.sandboxes()])
        for (const dir of [sandbox, ...taskDirs(sandbox)])
          for (const name of LOGS) {
            try {
              rotate(path.join(dir, name), this.maxBytes, this.keep, sandbox);
            } catch (err) {
              this.onError(`cannot rotate ${path.join(dir, name)}`, err as Error);
            }
            await new Promise((resolve) => setImmediate(resolve));
          }
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** The tasks' folders of a default executor's sandbox (`tasks/<id>`). */
function taskDirs(sandbox: string): string[] {
  try {
    return fs
      .readdirSync(path.join(sandbox, 'tasks'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(sandbox, 'tasks', e.name));
  } catch {
    return [];
  }
}

/**
 * Rotates `file` when it is past `maxBytes`: true when it did. The agent runs as root and the
 * folder is the task's: the log is opened without following a link and checked to lie in
 * `within` (the sandbox) once open, and the copy is made only as a new file, so a task cannot
 * turn the rotation onto another file.
 */
export function rotate(file: string, maxBytes: number, keep: number, within: string = path.dirname(file)): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size <= maxBytes) return false;
    const at = fs.readlinkSync(`/proc/self/fd/${fd}`);
    const root = fs.realpathSync(within);
    if (!at.startsWith(`${root}/`)) return false;
    const log = path.join(path.dirname(at), path.basename(file));
    fs.rmSync(`${log}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) {
      try {
        fs.renameSync(`${log}.${i}`, `${log}.${i + 1}`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    const out = fs.openSync(
      `${log}.1`,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      st.mode & 0o777,
    );
    try {
      const buf = Buffer.alloc(1024 * 1024);
      for (let pos = 0; ;) {
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        fs.writeSync(out, buf, 0, n);
        pos += n;
      }
      fs.fchownSync(out, st.uid, st.gid);
    } finally {
      fs.closeSync(out);
    }
    fs.ftruncateSync(fd, 0);
    return true;
  } finally {
    fs.closeSync(fd);
  }
}
