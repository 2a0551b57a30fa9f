/**
 * The executors' records (checkpoints), beside the tasks' and as private: what a restarted agent
 * needs to find its executors again (process, credential, tasks), and where the executor API
 * listened, so that executors reach it at the same address after the restart.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileName } from '../containerizer/names';
import type { ExecutorCheckpoint } from './executor-run';

export class ExecutorCheckpoints {
  private readonly dir: string;
  private readonly endpointFile: string;

  constructor(workDir: string) {
    this.dir = path.join(workDir, 'executors');
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700);
    this.endpointFile = path.join(this.dir, 'endpoint.json');
  }

  fileOf(frameworkId: string, executorId: string): string {
    return path.join(this.dir, fileName(frameworkId), `${fileName(executorId)}.json`);
  }

  write(cp: ExecutorCheckpoint): void {
    writeAtomically(this.fileOf(cp.frameworkId, cp.spec.executorId), JSON.stringify(cp));
  }

  remove(frameworkId: string, executorId: string): void {
    fs.rmSync(this.fileOf(frameworkId, executorId), { force: true });
  }

  readAll(): ExecutorCheckpoint[] {
    const out: ExecutorCheckpoint[] = [];
    for (const fw of fs.readdirSync(this.dir)) {
      const dir = path.join(this.dir, fw);
      if (!fs.statSync(dir).isDirectory()) continue;
      for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json'))) {
        try {
          out.push(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ExecutorCheckpoint);
        } catch {
          continue; // Half-written by a crash: its rename never happened.
        }
      }
    }
    return out;
  }

  /** The executor API's last port, if recorded. */
  lastPort(): number | undefined {
    try {
      const { port } = JSON.parse(fs.readFileSync(this.endpointFile, 'utf8')) as { port?: number };
      return typeof port === 'number' ? port : undefined;
    } catch {
      return undefined;
    }
  }

  recordPort(port: number): void {
    writeAtomically(this.endpointFile, JSON.stringify({ port }));
  }
}

function writeAtomically(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file + '.tmp', content, { mode: 0o600 });
  fs.renameSync(file + '.tmp', file);
}
