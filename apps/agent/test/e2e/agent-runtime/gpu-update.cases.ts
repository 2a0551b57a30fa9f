/**
 * The gpu/nvidia isolator on its own, with real processes in a real devices cgroup (root only:
 * elsewhere there is none, and it checks the environment alone): a container that grows (an
 * executor taking a task with a GPU) is let into the GPU it now holds, and one that shrinks is
 * kept out of the one it gave back.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NvidiaGpus } from '../../../src/containerizer/isolators/gpus';
import type { Container } from '../../../src/containerizer/isolators/isolator';
import type { NvidiaGpu } from '../../../src/containerizer/isolators/nvidia';

const root = process.getuid?.() === 0;
const [LET_IN, KEPT_OUT] = [root ? 'No such device or address' : 'No such file or directory', 'Operation not permitted'];

describe('gpu/nvidia isolator (a real devices cgroup)', () => {
  let dir: string;
  let isolator: NvidiaGpus | undefined;
  beforeEach(() => (dir = fs.mkdtempSync(path.join('/var/tmp', 'arbiter-gpu-update-'))));
  afterEach(() => {
    isolator?.removeBase();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** What opening each GPU's node gives a new process of the container. */
  const opens = async (c: Container, gpus: NvidiaGpu[]): Promise<string[]> => {
    const script = `read go; for g in ${gpus.map((g) => g.device).join(' ')}; do cat "$g" 2>&1 | sed 's/.*: //'; done`;
    const child = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    isolator?.isolate(c, child.pid ?? 0);
    child.stdin.end('go\n');
    await exited;
    return out.trim().split('\n');
  };

  it("follows a container's GPUs as they change", async () => {
    const gpus: NvidiaGpu[] = [0, 1].map((i) => ({ index: i, model: 'fake', device: path.join(dir, `nvidia${i}`), major: 195, minor: i }));
    if (root) for (const g of gpus) execFileSync('mknod', ['-m', '666', g.device, 'c', '195', String(g.minor)]);
    isolator = new NvidiaGpus({ gpus }, dir, `arbiter-test-${process.pid}`);
    expect(isolator.problem === undefined).toBe(root);
    const c: Container = { name: 'executor', sandbox: dir, limits: { pids: 10, gpus: 1 } };
    isolator.prepare(c);
    expect(c.env).toEqual({ NVIDIA_VISIBLE_DEVICES: '0', CUDA_VISIBLE_DEVICES: '0', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    expect(await opens(c, gpus)).toEqual([LET_IN, root ? KEPT_OUT : LET_IN]);
    isolator.update(c, { pids: 10, gpus: 2 });
    expect([isolator.allocator.held('executor'), await opens(c, gpus)]).toEqual([
      [0, 1],
      [LET_IN, LET_IN],
    ]);
    isolator.update(c, { pids: 10 });
    expect([isolator.allocator.held('executor'), await opens(c, gpus)]).toEqual([[], root ? [KEPT_OUT, KEPT_OUT] : [LET_IN, LET_IN]]);
    expect(isolator.cleanup(c)).toBe(true);
    expect(isolator.allocator.free()).toEqual([0, 1]);
  });
});
