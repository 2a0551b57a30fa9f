import { Resources } from '@arbiter/allocator';
import { runBatch, runDrfDemo } from '@arbiter/examples';
import { ADMIN_TOKEN, closeStarted, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { defined } from '../../support/until';

describe('examples against the control plane', () => {
  let t: TestControlPlane;
  let agent: ProtocolAgent | undefined;
  beforeEach(async () => {
    t = await startTestControlPlane({ config: { allocationInterval: 0.1 } });
    agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
      hostname: 'example-host',
      resources: Resources.fromScalars({ cpus: 9, mem: 18432 }).toJSON(),
    });
    await agent.register();
  }, STARTUP_TIMEOUT_MS);
  afterEach(async () => {
    agent?.close();
    agent = undefined;
    await closeStarted(t);
  }, STARTUP_TIMEOUT_MS);

  it('drf-demo, run by a framework principal, settles at A 3 tasks, B 2, both at a dominant share of 2/3, as the control plane sees it', async () => {
    const token = await t.principal('drf-demo', 'FRAMEWORK');
    const lines: string[] = [];
    // Once it has settled, before its frameworks leave, the operators' view agrees with what they saw.
    let seen = {};
    const whileSettled = async () => {
      const items = (await ok(t.client.GET('/api/v1/frameworks', { params: { query: { limit: 500 } } }))).items;
      const demo = items.filter((f) => f.name.startsWith('drf-demo-'));
      seen = Object.fromEntries(demo.map((f) => [f.name, [f.activeTasks, Math.round(f.dominantShare * 1000) / 1000]]));
    };
    const result = await runDrfDemo({ master: t.cp.url, token, log: (l) => lines.push(l), settleMs: 1000, whileSettled });
    expect(result).toEqual({ tasks: { A: 3, B: 2 }, dominantShares: { A: 0.667, B: 0.667 } });
    expect(seen).toEqual({ 'drf-demo-A': [3, 0.667], 'drf-demo-B': [2, 0.667] });
    expect(lines.filter((l) => l.startsWith('offer to')).length).toBe(5);
  });

  it('batch runs every command and reports each outcome', async () => {
    defined(agent).finishImmediately = true;
    const outcomes = await runBatch({
      master: t.cp.url,
      token: await t.principal('batch'),
      commands: ['true', 'echo hi', 'date'],
      log: () => undefined,
    });
    expect(outcomes.map((o) => [o.taskId, o.state])).toEqual([
      ['cmd-0', 'FINISHED'],
      ['cmd-1', 'FINISHED'],
      ['cmd-2', 'FINISHED'],
    ]);
  });
});
