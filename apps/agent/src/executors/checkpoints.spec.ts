import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Checkpoint, TaskCheckpoints } from './checkpoints';

const record = (taskId: string, state: Checkpoint['state']): Checkpoint => ({
  frameworkId: 'fw',
  spec: { taskId, name: taskId, command: { shell: 'true' }, resources: [{ name: 'cpus', value: 0.1 }] },
  state,
  pid: 42,
  startTicks: 7,
});

describe('task checkpoints', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-checkpoints-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the last record of each task, private to the agent, and skips what cannot be read', () => {
    const cps = new TaskCheckpoints(dir);
    cps.write(record('a', 'STARTING'));
    cps.write(record('a', 'RUNNING'));
    cps.write(record('b', 'FINISHED'));
    fs.writeFileSync(path.join(path.dirname(cps.fileOf('fw', 'a')), 'torn.json'), '{"frame');
    const again = new TaskCheckpoints(dir);
    expect(
      again
        .readAll()
        .map(({ cp }) => `${cp.spec.taskId}:${cp.state}`)
        .sort(),
    ).toEqual(['a:RUNNING', 'b:FINISHED']);
    expect(fs.statSync(path.join(dir, 'checkpoints')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(cps.fileOf('fw', 'a')).mode & 0o777).toBe(0o600);
  });

  it('names records readably and within any file name limit, whatever the ids', () => {
    const cps = new TaskCheckpoints(dir);
    const long = 'x'.repeat(255);
    cps.write({ ...record(long, 'RUNNING'), frameworkId: long });
    const file = cps.fileOf(long, long);
    expect(path.basename(file)).toMatch(/^x{40}-[0-9a-f]{16}\.json$/);
    expect(cps.fileOf('fw', 'a/../b')).toMatch(/\/fw-[0-9a-f]{16}\/a_\.\._b-[0-9a-f]{16}\.json$/);
    expect(cps.fileOf('fw', 'a')).not.toBe(cps.fileOf('fw', 'a_'));
    expect(cps.readAll().map(({ cp }) => cp.spec.taskId)).toEqual([long]);
  });
});
