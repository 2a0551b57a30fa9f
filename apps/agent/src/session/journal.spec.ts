import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StatusUpdate } from '@arbiter/contracts';
import { UpdateJournal } from './journal';

describe('update journal', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-journal-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps updates across instances, in order, until removed', () => {
    const u = (n: number) =>
      ({
        updateUuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        frameworkId: 'f',
        taskId: 't',
        agentId: 'a',
        state: 'RUNNING',
        timestamp: new Date().toISOString(),
        source: 'SOURCE_AGENT',
      }) as StatusUpdate;
    const a = new UpdateJournal(dir);
    for (let i = 0; i < 12; i++) a.append(u(i));
    a.remove(a.pending()[0].file);
    const b = new UpdateJournal(dir);
    expect(b.pending().map((p) => p.update.updateUuid)).toEqual(Array.from({ length: 11 }, (_, i) => u(i + 1).updateUuid));
    b.append(u(99));
    expect(b.pending().at(-1)?.update.updateUuid).toBe(u(99).updateUuid);
    expect(b.size).toBe(12);
  });
});
