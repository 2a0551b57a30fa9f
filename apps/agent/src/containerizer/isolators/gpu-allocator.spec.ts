import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GpuAllocator, NoGpuLeft } from './gpu-allocator';

describe('GPU allocator', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-gpus-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('hands out whole GPUs by index, lowest free first, and takes them back', () => {
    const gpus = new GpuAllocator([0, 1, 2]);
    expect(gpus.resize('a', 1)).toEqual([0]);
    expect(gpus.resize('b', 1)).toEqual([1]);
    expect(() => gpus.resize('c', 2)).toThrow(new NoGpuLeft("the task needs 2 GPU(s) and 1 of this agent's 3 are free for it"));
    expect(() => gpus.resize('c', 0.5)).toThrow(NoGpuLeft);
    expect(gpus.held('c')).toEqual([]);
    gpus.release('a');
    expect(gpus.resize('c', 2)).toEqual([0, 2]);
    // Growing keeps what it has; shrinking gives back the highest.
    gpus.release('b');
    expect(gpus.resize('c', 3)).toEqual([0, 1, 2]);
    expect(gpus.resize('c', 1)).toEqual([0]);
    expect(gpus.free()).toEqual([1, 2]);
    expect(gpus.resize('d', 0)).toEqual([]);
  });

  it('recovers after a restart: running holders keep their GPUs, those that ended or never started let go', () => {
    const file = path.join(dir, 'gpus.json');
    const before = new GpuAllocator([0, 1, 2, 3], file);
    before.resize('running', 1);
    before.started('running', 100, 5);
    before.resize('ended', 1);
    before.started('ended', 200, 6);
    before.resize('never-started', 1);
    const after = new GpuAllocator([0, 1, 2, 3], file);
    expect(after.recover((pid, ticks) => pid === 100 && ticks === 5)).toEqual(['running']);
    expect([after.held('running'), after.free()]).toEqual([[0], [1, 2, 3]]);
    // What was recovered is recorded again; GPUs the agent no longer has are not held.
    expect(new GpuAllocator([1, 2], file).held('running')).toEqual([]);
    expect(new GpuAllocator([0], file).held('running')).toEqual([0]);
  });
});
