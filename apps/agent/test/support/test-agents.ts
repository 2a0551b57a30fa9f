/** Agents for tests against a FakeControlPlane: quiet, no disk checks unless asked, and stopped together. */
import pino from 'pino';
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
