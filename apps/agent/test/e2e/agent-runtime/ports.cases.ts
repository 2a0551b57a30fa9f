/**
 * The network/ports isolator with real tasks: one listening on a port it was not given is killed
 * with Mesos's reason and message; one listening on its own port keeps running; with enforcement
 * off, the port is reported in a status update and the task runs on.
 */
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { Agent } from '../../../src/agent';
import type { PortsOptions } from '../../../src/containerizer/isolators/ports';
import { listeningSockets } from '../../../src/containerizer/isolators/ports';
import { launchOf } from '../../support/fake-control-plane';
import { agentBed } from '../../support/test-agents';

const until = (check: () => boolean, what = 'the agent condition') => untilWithin(check, 15_000, what);

/** A port free now (the kernel's pick). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('network/ports isolator (real tasks)', () => {
  const bed = agentBed(path.join(process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir(), 'arbiter-ports-'));
  const agentWith = async (ports: PortsOptions) => {
    const agent = bed.agentOn(path.join(bed.dir, 'work'), { tasks: { ports: { watchIntervalMs: 200, ...ports } } });
    await until(() => bed.cp.registered);
    return agent;
  };
  /** A task listening on `port` (busybox nc), given `given` as its ports. */
  const listener = (taskId: string, port: number, given?: number): LaunchTask => {
    const msg = launchOf(taskId, `exec busybox nc -l -p ${port}`);
    const resources = [...msg.task.resources, ...(given ? [{ name: 'ports', ranges: [[given, given]] as Array<[number, number]> }] : [])];
    return { ...msg, task: { ...msg.task, resources } };
  };
  const listening = (port: number) => [...listeningSockets().values()].includes(port);
  /** Resolves once the agent has checked every container twice more. */
  const twoMoreChecks = async (agent: Agent) => {
    const isolator = agent.tasks.containerizer.ports;
    const from = isolator?.checks ?? 0;
    await until(() => (isolator?.checks ?? 0) >= from + 2, 'two more port checks');
  };

  it("kills a task listening on a port it was not given, with Mesos's reason; one on its own port runs on", async () => {
    const agent = await agentWith({});
    const [own, other] = [await freePort(), await freePort()];
    bed.cp.launch(listener('on-own-port', own, own));
    bed.cp.launch(listener('on-other-port', other, own));
    await until(() => bed.cp.last('on-other-port')?.state === 'FAILED', 'the squatter failed');
    expect(bed.cp.last('on-other-port')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LIMITATION' });
    expect(bed.cp.last('on-other-port')?.message).toMatch(
      new RegExp(`^Container [0-9a-f]+ is listening on unallocated port\\(s\\): \\[${other}-${other}\\]$`),
    );
    expect(bed.cp.states('on-other-port')).toEqual(['STARTING', 'RUNNING', 'FAILED']);
    await until(() => listening(own), 'the task on its own port listens');
    await twoMoreChecks(agent);
    expect(bed.cp.states('on-own-port')).toEqual(['STARTING', 'RUNNING']);
    expect(listening(other)).toBe(false);
  });

  it('only reports a task on an unallocated port when enforcement is off: one update, and it runs on', async () => {
    const agent = await agentWith({ enforce: false });
    const port = await freePort();
    bed.cp.launch(listener('squatter', port));
    await until(() => bed.cp.statuses.filter((u) => u.taskId === 'squatter').length === 3, 'the report');
    expect(bed.cp.last('squatter')?.state).toBe('RUNNING');
    expect(bed.cp.last('squatter')?.message).toMatch(new RegExp(`is listening on unallocated port\\(s\\): \\[${port}-${port}\\]$`));
    await twoMoreChecks(agent);
    // Reported once: the same port is not reported again.
    expect(bed.cp.states('squatter')).toEqual(['STARTING', 'RUNNING', 'RUNNING']);
    expect(listening(port)).toBe(true);
  });
});
