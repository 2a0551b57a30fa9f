/**
 * Status updates waiting for the control plane's acknowledgement, kept on disk: an update is
 * written (and fsync'd) before it is sent and deleted only once acknowledged, so none is lost
 * when the agent or the control plane restarts. Files are numbered, so order is kept.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StatusUpdate } from '@arbiter/contracts';

export class UpdateJournal {
  private next = 0;

  constructor(private readonly dir: string) {
    // The agent's alone: tasks can neither read nor forge updates.
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    for (const f of fs.readdirSync(dir)) {
      if (f.endsWith('.tmp')) fs.rmSync(path.join(dir, f), { force: true });
      const n = Number.parseInt(f, 10);
      if (Number.isFinite(n) && n >= this.next) this.next = n + 1;
    }
  }

  /** Appends an update durably, or throws (and keeps nothing of it). */
  append(update: StatusUpdate): void {
    const name = String(this.next++).padStart(12, '0') + '.json';
    const tmp = path.join(this.dir, name + '.tmp');
    try {
      const fd = fs.openSync(tmp, 'w', 0o600);
      try {
        fs.writeSync(fd, JSON.stringify(update));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, path.join(this.dir, name));
    } catch (err) {
      // Out of space, say: nothing half-written is left behind.
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }

  /** Whether the journal takes a durable write now (the error when it does not). */
  probe(): Error | undefined {
    const tmp = path.join(this.dir, 'probe.tmp');
    try {
      const fd = fs.openSync(tmp, 'w', 0o600);
      try {
        fs.writeSync(fd, '{}');
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return undefined;
    } catch (err) {
      return err as Error;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  /** Pending updates, oldest first. */
  pending(): Array<{ file: string; update: StatusUpdate }> {
    return fs
      .readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .flatMap((f) => {
        try {
          return [{ file: f, update: JSON.parse(fs.readFileSync(path.join(this.dir, f), 'utf8')) as StatusUpdate }];
        } catch {
          return []; // A torn write cannot happen (rename is atomic); ignore anything unreadable.
        }
      });
  }

  remove(file: string): void {
    fs.rmSync(path.join(this.dir, file), { force: true });
  }

  get size(): number {
    return fs.readdirSync(this.dir).filter((f) => f.endsWith('.json')).length;
  }
}
