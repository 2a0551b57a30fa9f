/** Agents for tests against a FakeControlPlane: quiet, no disk checks unless asked, and stopped together. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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

/** Kills the agents' tasks and executors (which an agent's stop leaves running, for recovery) and stops them (emptying the list). */
export async function stopAgents(agents: Agent[]): Promise<void> {
  for (const a of agents.splice(0)) {
    await a.tasks.killAll();
    await a.executors.killAll();
    await a.stop();
  }
}

/**
 * A test file's bed: before each test a work folder (reachable by task users) and a fake control
 * plane; after it, the agents started with `agentOn` (or pushed on `agents`) stopped and both gone.
 * The folder is made in the system's temporary folder unless `prefix` is an absolute path.
 */
export function agentBed(prefix: string, defaults: Partial<AgentOptions> = {}) {
  const bed = { dir: '', cp: undefined as unknown as FakeControlPlane, agents: [] as Agent[] };
  beforeEach(async () => {
    bed.dir = fs.mkdtempSync(path.isAbsolute(prefix) ? prefix : path.join(os.tmpdir(), prefix));
    fs.chmodSync(bed.dir, 0o711);
    bed.cp = await FakeControlPlane.start();
  });
  afterEach(async () => {
    await stopAgents(bed.agents);
    await bed.cp.close();
    fs.rmSync(bed.dir, { recursive: true, force: true });
  });
  /** A started agent on `workDir`, stopped after the test. */
  const agentOn = (workDir: string, extra: Partial<AgentOptions> = {}): Agent => {
    const agent = testAgent(bed.cp, workDir, { ...defaults, ...extra });
    bed.agents.push(agent);
    agent.start();
    return agent;
  };
  return Object.assign(bed, { agentOn });
}
