/**
 * The executors' records of their tasks (checkpoints), kept outside every sandbox and readable
 * by the agent only: what a restarted agent needs to find its tasks again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CheckStatus, isTerminalTaskState, type TaskSpec, type TaskState } from '@arbiter/contracts';
import type { Sandboxes } from '../containerizer/sandbox';
import type { Collectable } from '../gc/gc';
import type { TaskCgroup } from '../containerizer/isolators/cgroups';
import { fileName } from '../containerizer/names';

export interface Checkpoint {
  frameworkId: string;
  spec: TaskSpec;
  memLimitBytes?: number;
  pid?: number;
  /** Process start time (see processStartTicks): guards against pid reuse. */
  startTicks?: number;
  state: TaskState;
  /** The OS user it runs as (`arbiter-<uid>` for a dynamic one), and its ids. */
  user?: string;
  uid?: number;
  gid?: number;
  cgroup?: TaskCgroup;
  /** Its sandbox (absent in records of agents before hashed sandbox names). */
  sandbox?: string;
  /** The image it runs in (as normalized, and its digest), when it runs in one. */
  image?: { reference: string; digest: string };
  /** Its end, when the update journal could not take it: reported again after a restart. */
  unreported?: { reason: string; message: string };
  /** What its checks last told (see ../checks): reported with each of its updates. */
  healthy?: boolean;
  checkStatus?: CheckStatus;
}

export class TaskCheckpoints {
  private readonly dir: string;

  constructor(workDir: string) {
    this.dir = path.join(workDir, 'checkpoints');
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700);
  }

  /** Where a task's record is kept: names of bounded length whatever the ids (see names.ts). */
  fileOf(frameworkId: string, taskId: string): string {
    return path.join(this.dir, fileName(frameworkId), `${fileName(taskId)}.json`);
  }

  /** Replaces the task's record atomically (in `file`, where a recovered record was found). */
  write(cp: Checkpoint, file = this.fileOf(cp.frameworkId, cp.spec.taskId)): void {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file + '.tmp', JSON.stringify(cp), { mode: 0o600 });
    fs.renameSync(file + '.tmp', file);
  }

  /**
   * Records of ended tasks no longer held in memory (`held`: their end acknowledged), with their
   * sandboxes (where records before hashed sandbox names had them), since the record was last written.
   */
  ended(held: (frameworkId: string, taskId: string) => boolean, sandboxes: Pick<Sandboxes, 'legacyPathOf'>): Collectable[] {
    const out: Collectable[] = [];
    for (const { file, cp } of this.readAll()) {
      if (!isTerminalTaskState(cp.state) || cp.unreported || held(cp.frameworkId, cp.spec.taskId)) continue;
      let since: number;
      try {
        since = fs.statSync(file).mtimeMs;
      } catch {
        continue;
      }
      out.push({
        what: `task ${cp.spec.taskId}`,
        since,
        paths: [cp.sandbox ?? sandboxes.legacyPathOf(cp.frameworkId, cp.spec.taskId), file],
      });
    }
    return out;
  }

  /** Every record that can be read (one left half-written by a crash is skipped: its rename never happened). */
  readAll(): Array<{ file: string; cp: Checkpoint }> {
    const out: Array<{ file: string; cp: Checkpoint }> = [];
    for (const fw of fs.readdirSync(this.dir)) {
      const dir = path.join(this.dir, fw);
      if (!fs.statSync(dir).isDirectory()) continue;
      for (const t of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        const file = path.join(dir, t);
        try {
          out.push({ file, cp: JSON.parse(fs.readFileSync(file, 'utf8')) as Checkpoint });
        } catch {
          continue;
        }
      }
    }
    return out;
  }
}
