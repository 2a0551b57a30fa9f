/** Agents for tests against a FakeControlPlane: quiet, no disk checks unless asked, and stopped together. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { until } from '@arbiter/test-support';
import { Agent, type AgentOptions } from '../../src/agent';
import { FakeControlPlane } from './fake-control-plane';

export function testAgent(cp: FakeControlPlane, workDir: string, extra: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    master: cp.url,
    token: 'unused',
    hostname: 'test-host',
    resources: [{ name: 'cpus', value: 1 }],
    attributes: {},
    workDir,
    logger: pino({ level: 'silent' }),
    ...extra,
    tasks: { diskCheckIntervalMs: 0, ...extra.tasks },
  });
}

/** Kills the agents' tasks and stops them (emptying the list). */
export async function stopAgents(agents: Agent[]): Promise<void> {
  for (const a of agents.splice(0)) {
    await a.tasks.killAll();
    await a.stop();
  }
}

/**
 * Per test: a scratch directory the task user can reach (under /var/tmp as root), a
 * FakeControlPlane, and the agents `start` puts on it; after each test their executors and tasks
 * are killed and everything removed.
 */
export function executorAgents(prefix: string) {
  const bed = {
    dir: '',
    cp: undefined as unknown as FakeControlPlane,
    agents: [] as Agent[],
    async start(extra: Partial<AgentOptions> = {}): Promise<Agent> {
      const agent = testAgent(bed.cp, path.join(bed.dir, 'work'), extra);
      bed.agents.push(agent);
      agent.start();
      await agent.listening;
      await until(() => bed.cp.registered, 20_000, 'the agent registers');
      return agent;
    },
  };
  beforeEach(async () => {
    bed.dir = fs.mkdtempSync(path.join(process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir(), prefix));
    fs.chmodSync(bed.dir, 0o711);
    bed.cp = await FakeControlPlane.start();
  });
  afterEach(async () => {
    for (const a of bed.agents) await a.executors.killAll();
    await stopAgents(bed.agents);
    await bed.cp.close();
    fs.rmSync(bed.dir, { recursive: true, force: true });
  });
  return bed;
}
