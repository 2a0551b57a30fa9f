/**
 * The gpu/nvidia isolator with real tasks, a fake nvidia-smi printing two GPUs and fake device
 * nodes (major 195): opening a node of a device that is not there gives ENXIO, a devices-cgroup
 * denial gives EPERM, which tells what the cgroup lets a task open. A task asking for one GPU
 * sees exactly one in its environment and is denied the other; two tasks get different GPUs; a
 * GPU is free again when its task ends, and a restarted agent knows which running task holds
 * which. The CI runs it as root (device nodes, devices cgroup); elsewhere it checks the
 * environment alone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/agent';
import { detectNvidiaGpus, type NvidiaGpu } from '../../../src/containerizer/isolators/nvidia';
import { until as untilWithin } from '@arbiter/test-support';
import { launchOf } from '../../support/fake-control-plane';
import { makeNvidiaNodes } from '../../support/nvidia-nodes';
import { agentBed, testAgent } from '../../support/test-agents';

const until = (check: () => boolean, what = 'the agent condition') => untilWithin(check, 15_000, what);
const root = process.getuid?.() === 0;
const UUIDS = ['GPU-aaaaaaaa-0000-0000-0000-000000000000', 'GPU-bbbbbbbb-1111-1111-1111-111111111111'];

describe('gpu/nvidia isolator (real tasks, fake GPUs)', () => {
  const bed = agentBed(path.join(root ? '/var/tmp' : os.tmpdir(), 'arbiter-gpus-'));
  const { agents } = bed;
  let dev: string;
  let gpus: NvidiaGpu[];
  const agentOn = async () => {
    const agent = testAgent(bed.cp, path.join(bed.dir, 'work'), { tasks: { gpus: { gpus } } });
    const registered = bed.cp.registrations.length;
    agents.push(agent);
    agent.start();
    await until(() => bed.cp.registrations.length > registered);
    return agent;
  };
  /** A task that prints its GPU environment and what opening each device node gives, then holds on. */
  const probe = (taskId: string, count: number) => {
    const shell = `echo "$CUDA_VISIBLE_DEVICES|$NVIDIA_VISIBLE_DEVICES"; for d in nvidia0 nvidia1 nvidiactl; do cat "$DEV/$d" 2>&1 | sed 's/.*: //'; done; echo done; exec sleep 100`;
    const msg = launchOf(taskId, shell);
    const resources = [...msg.task.resources, ...(count ? [{ name: 'gpus', value: count }] : [])];
    // The task tries to pick both GPUs itself: the agent's environment wins.
    bed.cp.launch({ ...msg, task: { ...msg.task, resources, env: { DEV: dev, CUDA_VISIBLE_DEVICES: '0,1' } } });
  };
  const output = (agent: Agent, taskId: string) => {
    try {
      return fs.readFileSync(path.join(agent.tasks.sandboxOf('fw', taskId), 'stdout'), 'utf8');
    } catch {
      return '';
    }
  };
  const probed = async (agent: Agent, taskId: string) => {
    await until(() => output(agent, taskId).endsWith('done\n'), `${taskId} probed its GPUs`);
    return output(agent, taskId).split('\n').slice(0, 4);
  };
  const DENIED = 'Operation not permitted';
  const ABSENT = root ? 'No such device or address' : 'No such file or directory';
  /** What a task holding GPU `i` (of 0 and 1) sees: its uuid and index, its node opened (ENXIO), the other denied. */
  const holding = (i: number) => [`${UUIDS[i]}|${i}`, ...[0, 1].map((n) => (n === i || !root ? ABSENT : DENIED)), ABSENT];

  beforeEach(() => {
    fs.chmodSync(bed.dir, 0o755);
    dev = path.join(bed.dir, 'dev');
    fs.mkdirSync(dev, { mode: 0o755 });
    makeNvidiaNodes(dev);
    const smi = path.join(bed.dir, 'nvidia-smi');
    const csv = UUIDS.map((u, i) => `${i}, ${u}, NVIDIA H200, 143771 MiB, 00000000:${18 + i}:00.0`).join('\n');
    fs.writeFileSync(smi, `#!/bin/sh\necho '${csv}'\n`, { mode: 0o755 });
    gpus = detectNvidiaGpus({ nvidiaSmi: smi, devDir: dev, driverDir: path.join(bed.dir, 'no-driver') });
  });

  it('gives each task its own GPU, denies it the other, frees it at the end, and recovers holders after a restart', async () => {
    expect(gpus.map((g) => [g.index, g.uuid, g.model])).toEqual([
      [0, UUIDS[0], 'NVIDIA H200'],
      [1, UUIDS[1], 'NVIDIA H200'],
    ]);
    const agent = await agentOn();
    const capabilities = agent.tasks.containerizer.portsAndGpus();
    expect(capabilities.isolators).toEqual(['network/ports', 'gpu/nvidia']);
    expect(capabilities.gpus).toEqual(UUIDS.map((uuid, index) => ({ index, uuid, model: 'NVIDIA H200' })));
    // Without a devices controller, GPUs are confined by the environment alone, and the agent says so.
    expect(capabilities.gpusProblem === undefined).toBe(root);
    probe('a', 1);
    expect(await probed(agent, 'a')).toEqual(holding(0));
    probe('b', 1);
    expect(await probed(agent, 'b')).toEqual(holding(1));
    // None left: the launch fails, saying why.
    probe('c', 1);
    await until(() => bed.cp.last('c')?.state === 'FAILED');
    expect(bed.cp.last('c')?.message).toBe("could not prepare the task: the task needs 1 GPU(s) and 0 of this agent's 2 are free for it");
    // A task without GPUs sees none, and may open neither.
    probe('none', 0);
    expect(await probed(agent, 'none')).toEqual(['|void', root ? DENIED : ABSENT, root ? DENIED : ABSENT, ABSENT]);

    // A's GPU is free once A has ended.
    agent.kill({ frameworkId: 'fw', taskId: 'a', gracePeriodSeconds: 0 });
    await until(() => bed.cp.last('a')?.state === 'KILLED');
    probe('e', 1);
    expect(await probed(agent, 'e')).toEqual(holding(0));

    // A restarted agent knows that B and E, still running, hold both GPUs.
    await agent.stop();
    agents.splice(agents.indexOf(agent), 1);
    const again = await agentOn();
    probe('f', 1);
    await until(() => bed.cp.last('f')?.state === 'FAILED');
    expect(bed.cp.last('f')?.message).toMatch(/0 of this agent's 2 are free/);
    // E (recovered) ends: its GPU is free again.
    again.kill({ frameworkId: 'fw', taskId: 'e', gracePeriodSeconds: 0 });
    await until(() => bed.cp.last('e')?.state === 'KILLED');
    probe('g', 1);
    expect(await probed(again, 'g')).toEqual(holding(0));
  });
});
