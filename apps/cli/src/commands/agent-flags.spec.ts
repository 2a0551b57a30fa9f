/** The agent's `--modules`: a modules file's agent hooks loaded before the agent starts; a module it cannot load is one sentence. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as agentLib from '@arbiter/agent';
import { agentFlagOptions, loadAgentModules } from './agent-flags';

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-agent-modules-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (modules: unknown[]) => {
  const file = path.join(dir, 'modules.json');
  fs.writeFileSync(file, JSON.stringify({ modules }));
  return file;
};

describe('loadAgentModules', () => {
  it('loads nothing without a file, and the agent hooks of one', async () => {
    expect(await loadAgentModules(undefined)).toBeUndefined();
    fs.writeFileSync(
      path.join(dir, 'env.js'),
      "module.exports = { name: 'env', apiVersion: 1, points: ['agent:container-start'], create: () => ({ containerStart: () => ({ environment: { A: '1' } }) }) };",
    );
    const loaded = await loadAgentModules(write([{ use: './env.js' }]));
    const logged: string[] = [];
    loaded?.attach({ info: (_f, m) => logged.push(m), warn: (_f, m) => logged.push(m) });
    expect(logged).toEqual(['modules loaded']);
    expect(
      await loaded?.modules.hooks.start('agent:container-start', { agentId: 'a', frameworkId: 'f', sandbox: '/s', environment: {} }),
    ).toEqual({
      A: '1',
    });
  });

  it("refuses the control plane's hook point in one sentence", async () => {
    fs.writeFileSync(
      path.join(dir, 'cp.js'),
      "module.exports = { name: 'cp', apiVersion: 1, points: ['control-plane:task-launch'], create: () => ({ taskLaunch: () => undefined }) };",
    );
    const file = write([{ use: './cp.js' }]);
    await expect(loadAgentModules(file)).rejects.toThrow(
      `module './cp.js' (${file}) implements control-plane:task-launch, which an agent does not run (it runs agent:executor-start, agent:container-start, agent:executor-removed, agent:resource-estimator, agent:qos-controller, agent:isolator).`,
    );
  });

  it('loads the built-in estimator and QoS controller by name', async () => {
    const loaded = await loadAgentModules(
      write([
        { use: 'arbiter:usage', parameters: { margin: 0.1 } },
        { use: 'arbiter:load', parameters: { threshold5: 4 } },
      ]),
    );
    expect(loaded?.modules.modules.map((m) => [m.name, m.points])).toEqual([
      ['usage', ['agent:resource-estimator']],
      ['load', ['agent:qos-controller']],
    ]);
  });
});

describe('--oversubscribed-resources-interval', () => {
  const options = (value?: string) =>
    agentFlagOptions({ oversubscribedResourcesInterval: value }, agentLib, {
      toJSON: () => [],
    }).oversubscription;

  it('takes a duration, and refuses anything else in one sentence', () => {
    expect(options('30s')).toEqual({ intervalMs: 30_000 });
    expect(options(undefined)).toEqual({});
    expect(() => options('often')).toThrow("--oversubscribed-resources-interval: 'often' is not a duration above 0 such as 15s");
  });
});
