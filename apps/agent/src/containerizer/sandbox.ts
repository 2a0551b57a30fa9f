/**
 * Sandboxes: one folder per task (`<root>/frameworks/<hash>/tasks/<hash>/`, see names.ts), owned
 * by the task's user, mode 0700, its parents only passable. The root is the sandbox directory
 * (the work directory unless the operator places it elsewhere) when the task user can reach it,
 * else a place of its own (like the embedded database's data).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT_STATUS_FILE, PRIVATE_SHM, PRIVATE_TMP } from './launcher';
import { type OsUser, reachableBy } from './users';
import { hiddenName, safe } from './names';

/** A task's sandbox under `root` (a sandbox directory): hashed names, so its path reveals no id. */
export function sandboxOf(root: string, frameworkId: string, taskId: string): string {
  return path.join(root, 'frameworks', hiddenName(frameworkId), 'tasks', hiddenName(frameworkId, taskId));
}

/** An executor's sandbox under `root`: its tasks work there too (MESOS_SANDBOX). */
export function executorSandboxOf(root: string, frameworkId: string, executorId: string): string {
  return path.join(root, 'frameworks', hiddenName(frameworkId), 'executors', hiddenName(frameworkId, 'executor', executorId));
}

export class Sandboxes {
  /** Where sandboxes live: the work directory, or a place the task user can reach. */
  readonly root: string;

  /** `user`: the task user when the agent runs as root (null: tasks run as the agent's own user). */
  constructor(workDir: string, user: OsUser | null, fallback: string) {
    this.root = Sandboxes.place(workDir, user, fallback);
  }

  private static place(workDir: string, user: OsUser | null, fallback: string): string {
    if (!user || reachableBy(user, workDir)) return workDir;
    const hash = crypto.createHash('sha256').update(path.resolve(workDir)).digest('hex').slice(0, 16);
    const place = path.join(fallback, `sandboxes-${hash}`);
    fs.mkdirSync(place, { recursive: true });
    for (let at = place; at !== path.dirname(fallback); at = path.dirname(at)) fs.chmodSync(at, 0o711);
    return place;
  }

  pathOf(frameworkId: string, taskId: string): string {
    return sandboxOf(this.root, frameworkId, taskId);
  }

  executorPathOf(frameworkId: string, executorId: string): string {
    return executorSandboxOf(this.root, frameworkId, executorId);
  }

  /** Every executor's sandbox on disk, with when it last changed (an ended executor's: when it ended). */
  executorSandboxes(): Array<{ path: string; mtimeMs: number }> {
    const out: Array<{ path: string; mtimeMs: number }> = [];
    const frameworks = path.join(this.root, 'frameworks');
    for (const fw of readdir(frameworks)) {
      const dir = path.join(frameworks, fw, 'executors');
      for (const name of readdir(dir)) {
        try {
          out.push({ path: path.join(dir, name), mtimeMs: fs.statSync(path.join(dir, name)).mtimeMs });
        } catch {
          continue; // Removed meanwhile.
        }
      }
    }
    return out;
  }

  /** Where an agent before hashed names put a task's sandbox (a task it checkpointed then is found there). */
  legacyPathOf(frameworkId: string, taskId: string): string {
    return path.join(this.root, 'frameworks', safe(frameworkId), 'tasks', safe(taskId));
  }

  /** The sandbox, owned by the task's user and closed to everyone else; its parents only passable. */
  prepare(sandbox: string, user: OsUser): void {
    const frameworks = path.join(this.root, 'frameworks');
    fs.mkdirSync(sandbox, { recursive: true, mode: 0o700 });
    for (let at = path.dirname(sandbox); at.length >= frameworks.length; at = path.dirname(at)) fs.chmodSync(at, 0o711);
    fs.rmSync(path.join(sandbox, EXIT_STATUS_FILE), { force: true });
    fs.chownSync(sandbox, user.uid, user.gid);
    fs.chmodSync(sandbox, 0o700);
  }

  /**
   * The task's own /tmp and /dev/shm in its sandbox (mounted there in its namespace, or its
   * TMPDIR), made afresh, sticky and writable as the real ones are: only its sandbox leads there.
   */
  prepareTmp(sandbox: string, user: OsUser): void {
    for (const name of [PRIVATE_TMP, PRIVATE_SHM]) {
      const dir = path.join(sandbox, name);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { mode: 0o700 });
      fs.chownSync(dir, user.uid, user.gid);
      fs.chmodSync(dir, 0o1777);
    }
  }

  /** What the task left in its /tmp and /dev/shm goes once it has ended (the rest of the sandbox stays for its logs). */
  removeTmp(sandbox: string): void {
    for (const name of [PRIVATE_TMP, PRIVATE_SHM]) {
      try {
        fs.rmSync(path.join(sandbox, name), { recursive: true, force: true });
      } catch {
        // Retried by the sandbox's own collection.
      }
    }
  }

  /** The exit status the task's wrapper recorded, if it got that far. */
  exitStatus(sandbox: string): number | undefined {
    try {
      const n = Number.parseInt(fs.readFileSync(path.join(sandbox, EXIT_STATUS_FILE), 'utf8'), 10);
      return Number.isFinite(n) ? n : undefined;
    } catch {
      return undefined;
    }
  }
}

function readdir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
