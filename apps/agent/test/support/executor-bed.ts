/**
 * For executor tests with real processes: before each test a fresh work directory (where task
 * users can reach it) and a FakeControlPlane; after it, every agent's executors killed, the agents
 * stopped, the control plane closed and the directory removed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { until } from '@arbiter/test-support';
import type { Agent, AgentOptions } from '../../src/agent';
import { FakeControlPlane } from './fake-control-plane';
import { stopAgents, testAgent } from './test-agents';

const TEST_ROOT = process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir();

export interface ExecutorBed {
  /** This test's control plane (set before each test). */
  readonly cp: FakeControlPlane;
  /** This test's scratch directory (task users can reach it). */
  readonly dir: string;
  /** An agent on this test's work directory, started and registered. */
  agentOn(extra?: Partial<AgentOptions>): Promise<Agent>;
  /** An agent the test stopped itself: left alone after the test. */
  forget(agent: Agent): void;
}

export function executorBed(prefix: string, defaults: Partial<AgentOptions> = {}): ExecutorBed {
  let dir = '';
  let cp: FakeControlPlane | undefined;
  const agents: Agent[] = [];
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(TEST_ROOT, prefix));
    fs.chmodSync(dir, 0o711);
    cp = await FakeControlPlane.start();
  });
  afterEach(async () => {
    for (const a of agents) await a.executors.killAll();
    await stopAgents(agents);
    await cp?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get cp() {
      if (!cp) throw new Error('no control plane outside a test');
      return cp;
    },
    get dir() {
      return dir;
    },
    async agentOn(extra = {}) {
      const control = this.cp;
      const agent = testAgent(control, path.join(dir, 'work'), { ...defaults, ...extra });
      agents.push(agent);
      agent.start();
      await agent.listening;
      await until(() => control.registered, 20_000, 'the agent registers');
      return agent;
    },
    forget(agent) {
      agents.splice(agents.indexOf(agent), 1);
    },
  };
}
