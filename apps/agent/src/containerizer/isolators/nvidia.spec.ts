import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gpuEnvironment } from './gpus';
import { makeNvidiaNodes } from '../../../test/support/nvidia-nodes';
import { detectGpus, detectNvidiaGpus, nvidiaContainerMounts, parseGpuCsv, parseLdconfig } from './nvidia';

const root = process.getuid?.() === 0;
const CSV = `0, GPU-11111111-2222-3333-4444-555555555555, NVIDIA H200, 143771 MiB, 00000000:18:00.0
1, GPU-66666666-7777-8888-9999-000000000000, NVIDIA A100-SXM4-80GB, 81920 MiB, 00000000:3B:00.0
`;

describe('NVIDIA GPU detection', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-nvidia-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads nvidia-smi's csv: index, uuid, model, memory and bus id (a model's commas kept)", () => {
    expect(parseGpuCsv(`${CSV}2, [N/A], Tesla, Rev 2, 16 MiB, 00000000:5E:00.0\nNo devices were found\n`)).toEqual([
      { index: 0, uuid: 'GPU-11111111-2222-3333-4444-555555555555', model: 'NVIDIA H200', memoryMb: 143771, busId: '00000000:18:00.0' },
      {
        index: 1,
        uuid: 'GPU-66666666-7777-8888-9999-000000000000',
        model: 'NVIDIA A100-SXM4-80GB',
        memoryMb: 81920,
        busId: '00000000:3B:00.0',
      },
      { index: 2, model: 'Tesla, Rev 2', memoryMb: 16, busId: '00000000:5E:00.0' },
    ]);
  });

  it("finds the driver's libraries in ldconfig -p, 64-bit first", () => {
    const text = `3 libs found in cache \`/etc/ld.so.cache'
	libnvidia-ml.so.1 (libc6) => /usr/lib/i386-linux-gnu/libnvidia-ml.so.1
	libnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1
	libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
	libcudart.so.13 (libc6,x86-64) => /usr/local/cuda/lib/libcudart.so.13
	libc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6`;
    expect([...parseLdconfig(text)]).toEqual([
      ['libnvidia-ml.so.1', '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1'],
      ['libcuda.so.1', '/usr/lib/x86_64-linux-gnu/libcuda.so.1'],
    ]);
  });

  it('names a container its GPUs by UUID for CUDA and by index for the NVIDIA runtime, and none to one without', () => {
    const gpus = parseGpuCsv(CSV);
    expect(gpuEnvironment([gpus[1]])).toEqual({
      NVIDIA_VISIBLE_DEVICES: '1',
      CUDA_VISIBLE_DEVICES: 'GPU-66666666-7777-8888-9999-000000000000',
      CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
    });
    expect(
      gpuEnvironment([
        { index: 0, model: 'x' },
        { index: 2, model: 'x' },
      ]),
    ).toMatchObject({ CUDA_VISIBLE_DEVICES: '0,2' });
    expect(gpuEnvironment([])).toEqual({ CUDA_VISIBLE_DEVICES: '', NVIDIA_VISIBLE_DEVICES: 'void' });
  });

  it('detects GPUs with nvidia-smi, else from /dev/nvidia<N> nodes, else none', () => {
    const smi = path.join(dir, 'nvidia-smi');
    fs.writeFileSync(smi, `#!/bin/sh\ncat <<'EOF'\n${CSV}EOF\n`, { mode: 0o755 });
    const dev = path.join(dir, 'dev');
    fs.mkdirSync(dev);
    makeNvidiaNodes(dev);
    // The driver tells which minor each bus has (here, swapped).
    for (const [bus, minor] of [
      ['0000:18:00.0', 1],
      ['0000:3b:00.0', 0],
    ] as const) {
      fs.mkdirSync(path.join(dir, 'driver', 'gpus', bus), { recursive: true });
      fs.writeFileSync(path.join(dir, 'driver', 'gpus', bus, 'information'), `Model: \t\t NVIDIA X\nDevice Minor: \t ${minor}\n`);
    }
    const options = { nvidiaSmi: smi, devDir: dev, driverDir: path.join(dir, 'driver') };
    const found = detectNvidiaGpus(options);
    expect(found.map((g) => [g.index, g.device, g.major, g.minor])).toEqual([
      [0, path.join(dev, 'nvidia1'), 195, 1],
      [1, path.join(dev, 'nvidia0'), 195, 0],
    ]);
    expect(detectGpus({ ...options, only: [1] })).toEqual([
      { index: 1, uuid: 'GPU-66666666-7777-8888-9999-000000000000', model: 'NVIDIA A100-SXM4-80GB' },
    ]);
    // A failing nvidia-smi: the device nodes (character devices only), models from the driver.
    fs.writeFileSync(smi, '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2; exit 9\n');
    fs.writeFileSync(path.join(dev, 'nvidia7'), 'not a device');
    expect(detectGpus(options)).toEqual(
      root
        ? [
            { index: 0, model: 'NVIDIA X' },
            { index: 1, model: 'NVIDIA X' },
          ]
        : [],
    );
    expect(detectGpus({ nvidiaSmi: path.join(dir, 'none'), devDir: path.join(dir, 'none') })).toEqual([]);
    if (!root) return;
    // What a runtime binds into an image: the GPU's node and the control node, the tools beside nvidia-smi.
    fs.writeFileSync(path.join(dir, 'nvidia-debugdump'), '', { mode: 0o755 });
    const mounts = nvidiaContainerMounts([found[0]], { ...options, ldconfig: path.join(dir, 'none') });
    expect(mounts.devices).toEqual([
      { path: path.join(dev, 'nvidia1'), type: 'c', major: 195, minor: 1 },
      { path: path.join(dev, 'nvidiactl'), type: 'c', major: 195, minor: 255 },
    ]);
    expect(mounts.mounts.slice(0, 2)).toEqual([
      { source: smi, destination: '/usr/local/nvidia/bin/nvidia-smi', readOnly: true },
      { source: path.join(dir, 'nvidia-debugdump'), destination: '/usr/local/nvidia/bin/nvidia-debugdump', readOnly: true },
    ]);
    expect([mounts.binDir, mounts.libDir]).toEqual(['/usr/local/nvidia/bin', '/usr/local/nvidia/lib64']);
  });
});
