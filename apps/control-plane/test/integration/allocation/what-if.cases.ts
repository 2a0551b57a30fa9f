/**
 * What-if on the live cluster through the REST API: the next cycles without and with a change,
 * from a snapshot of the leader's allocator; the cluster itself does not change.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources, runScenario } from '@arbiter/allocator';
import { ClusterState } from '../../../src/master/cluster-state';
import { SimulationWorkers } from '../../../src/what-if/what-if.workers';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

interface Cycle {
  offers: Array<{ frameworkId: string; agentId: string }>;
  shares: { roles: Record<string, number> };
}
interface WhatIf {
  baseline: Cycle[];
  changed: Cycle[];
  agents: Record<string, string>;
  frameworks: Record<string, string>;
  scenario?: Record<string, unknown>;
}

let t: TestControlPlane;
const closers: Array<() => void> = [];
let fa: Recorder;
let fb: Recorder;

beforeAll(async () => {
  t = await startTestControlPlane({ config: { allocationInterval: 0.1 } });
  for (let i = 1; i <= 12; i++) {
    const a = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
      hostname: `node${i}`,
      resources: Resources.fromScalars({ cpus: 1, mem: 1024 }).toJSON(),
    });
    closers.push(() => a.close());
    await a.register();
  }
  fa = new Recorder(t, { name: 'team-a', roles: ['a'] });
  fb = new Recorder(t, { name: 'team-b', roles: ['b'] });
  for (const r of [fa, fb]) {
    closers.push(() => r.s.close());
    await r.s.start();
  }
  // Every agent is out in an offer, held unanswered.
  await until(() => t.cp.app.get(ClusterState).offers.size === 12);
});
afterAll(async () => {
  for (const c of closers) c();
  await t.close();
});

/** Agents offered per framework name over the cycles. */
const offeredTo = (r: WhatIf, cycles: Cycle[]) => {
  const out: Record<string, number> = {};
  for (const c of cycles) for (const o of c.offers) out[r.frameworks[o.frameworkId]] = (out[r.frameworks[o.frameworkId]] ?? 0) + 1;
  return out;
};

it('predicts the next cycles without and with a weight change, and changes nothing', async () => {
  const before = await t.request('GET', '/api/v1/roles');
  const res = await t.request('POST', '/api/v1/simulate', { change: { weights: { a: 2 } }, cycles: 2 });
  expect(res.status).toBe(200);
  const r = res.body as WhatIf;
  // Outstanding offers come back in the prediction: 6 agents each as things are, 8 and 4 with a at weight 2.
  expect(offeredTo(r, r.baseline)).toEqual({ 'team-a': 6, 'team-b': 6 });
  expect(offeredTo(r, r.changed)).toEqual({ 'team-a': 8, 'team-b': 4 });
  expect(r.changed[1].shares.roles.a).toBeCloseTo(1 / 3, 9);
  expect(Object.values(r.agents).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `node${i + 1}`).sort());
  // Nothing changed: the roles, the offers out, the audit log.
  expect((await t.request('GET', '/api/v1/roles')).body).toEqual(before.body);
  expect(t.cp.app.get(ClusterState).offers.size).toBe(12);
  expect(((await t.request('GET', '/api/v1/audit?action=weights.*')).body as { items: unknown[] }).items).toEqual([]);
});

it("answers a framework's demand, new agents and a scenario file that replays", async () => {
  const res = await t.request('POST', '/api/v1/simulate', {
    change: {
      demand: { [defined(fa.s.frameworkId)]: { cpus: 2 } },
      // Mesos text, as the rest of the API takes resources.
      addAgents: [{ hostname: 'big', resources: 'cpus:8;mem:8192', count: 2 }],
    },
    cycles: 3,
    scenario: true,
  });
  expect(res.status).toBe(200);
  const r = res.body as WhatIf;
  const last = r.changed[2].shares.roles;
  // team-a keeps 2 of 28 cpus; team-b the other 26.
  expect(last.a).toBeCloseTo(2 / 28, 9);
  expect(last.b).toBeCloseTo(26 / 28, 9);
  expect(r.agents['what-if:big-2']).toBe('big-2');
  const replay = runScenario(defined(r.scenario));
  expect(replay.failures).toEqual([]);
});

it('refuses a change it cannot read or apply with 400 and the path of what is wrong', async () => {
  const bad = await t.request('POST', '/api/v1/simulate', { change: { weights: { a: -1 }, removeAgents: [''] } });
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  expect((bad.body as { message: string }).message).toMatch(/change\.weights\.a/);
  const unknown = await t.request('POST', '/api/v1/simulate', { change: { removeAgents: ['nowhere'] } });
  expect(unknown.status).toBe(400);
  expect((unknown.body as { message: string }).message).toContain("no agent 'nowhere'");
  const tooMany = await t.request('POST', '/api/v1/simulate', { change: {}, cycles: 11 });
  expect(tooMany.status).toBe(400);
});

it('runs off the event loop: /health answers while a large simulation runs, and a second simulation meanwhile is refused 429', async () => {
  const workers = t.cp.app.get(SimulationWorkers);
  let finished = false;
  const large = t
    .request('POST', '/api/v1/simulate', {
      change: { addAgents: [{ hostname: 'w', resources: 'cpus:8;mem:8192', count: 10_000 }] },
      cycles: 10,
    })
    .finally(() => (finished = true));
  await until(() => workers.busy === 1, 'the simulation under way');
  const second = await t.request('POST', '/api/v1/simulate', { change: {} });
  const health = await t.request('GET', '/health', undefined, { token: null });
  // Both answered while the large simulation was still running.
  expect(finished).toBe(false);
  expect(health.status).toBe(200);
  expect(second.status).toBe(429);
  expect(second.body).toMatchObject({ code: 'SIMULATION_BUSY', details: { running: 1, limit: 1 } });
  const answer = await large;
  expect(answer.status).toBe(200);
  expect(Object.keys((answer.body as WhatIf).agents)).toHaveLength(12 + 10_000);
  // The place is free again.
  expect((await t.request('POST', '/api/v1/simulate', { change: {} })).status).toBe(200);
});

it('refuses a change past its bounds with 400 SIMULATION_TOO_LARGE', async () => {
  const agents = await t.request('POST', '/api/v1/simulate', {
    change: { addAgents: [1, 2].map((i) => ({ hostname: `h${i}`, resources: 'cpus:1;mem:1024', count: 5_001 })) },
  });
  expect(agents.status).toBe(400);
  expect(agents.body).toMatchObject({ code: 'SIMULATION_TOO_LARGE', details: { size: { addedAgents: 10_002 } } });
  const frameworks = await t.request('POST', '/api/v1/simulate', {
    change: { addFrameworks: Array.from({ length: 101 }, (_, i) => ({ id: `fw-${i}`, roles: ['a'] })) },
  });
  expect(frameworks.status).toBe(400);
  expect(frameworks.body).toMatchObject({ code: 'SIMULATION_TOO_LARGE', details: { size: { addedFrameworks: 101 } } });
});

it('checks the simulate ACL on the roles a change names', async () => {
  const limited = await t.principal('sim-limited', 'OPERATOR');
  const other = await t.principal('sim-other', 'OPERATOR');
  const acls = {
    permissive: true,
    simulate: [
      { principals: { values: ['sim-limited'] }, roles: { values: ['a'] } },
      { principals: { values: ['sim-limited'] }, roles: { type: 'NONE' } },
    ],
  };
  expect((await t.request('PUT', '/api/v1/acls', acls)).status).toBe(200);
  try {
    const mine = await t.request('POST', '/api/v1/simulate', { change: { weights: { a: 2 } }, cycles: 1 }, { token: limited });
    expect(mine.status).toBe(200);
    const theirs = await t.request('POST', '/api/v1/simulate', { change: { weights: { b: 2 } }, cycles: 1 }, { token: limited });
    expect(theirs.status).toBe(403);
    expect(theirs.body).toMatchObject({ code: 'FORBIDDEN', details: { action: 'simulate', object: 'b' } });
    // A change that names no role is the cluster as it is: role '*'.
    const none = await t.request('POST', '/api/v1/simulate', { change: {}, cycles: 1 }, { token: limited });
    expect(none.status).toBe(403);
    const allowed = await t.request('POST', '/api/v1/simulate', { change: { weights: { b: 2 } }, cycles: 1 }, { token: other });
    expect(allowed.status).toBe(200);
  } finally {
    await t.request('PUT', '/api/v1/acls', { permissive: true });
  }
});

// Three CLI processes, each started from the TypeScript sources: a longer bound than the tier's.
it('answers the CLI: arbiter simulate --from-cluster prints the shares and writes a scenario that replays', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-what-if-'));
  try {
    const change = path.join(dir, 'change.json');
    const scenario = path.join(dir, 'cluster.json');
    fs.writeFileSync(change, JSON.stringify({ weights: { a: 2 } }));
    const bin = path.resolve(__dirname, '../../../../cli/bin/arbiter.js');
    // Asynchronously: the control plane answering it runs in this process.
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [bin, ...args], { encoding: 'utf8' }, (err, stdout, stderr) =>
          resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
        );
      });
    const asked = await cli(
      'simulate',
      '--from-cluster',
      t.cp.url,
      '--token',
      ADMIN_TOKEN,
      '--change',
      change,
      '--cycles',
      '2',
      '--write-scenario',
      scenario,
    );
    expect(asked.status).toBe(0);
    // Role a: 6 of 12 now (0.5), 8 of 12 at weight 2 (0.333 weighted); team-a offered 6 agents, then 8.
    expect(asked.stdout).toMatch(/^ {2}a +0\.500 +0\.333$/m);
    expect(asked.stdout).toMatch(/^ {2}team-a +6 +8$/m);
    const replayed = await cli('simulate', scenario);
    expect([replayed.status, replayed.stdout]).toEqual([0, expect.stringContaining('1 passed, 0 failed')]);
    const refused = await cli('simulate', '--from-cluster', t.cp.url, '--token', 'not-a-token-0123456789', '--change', change);
    // Not authenticated: exit code 4 and the API's code (docs/cli.md).
    expect(refused.status).toBe(4);
    expect(refused.stderr).toMatch(/^arbiter: not authenticated \(AUTH_TOKEN_INVALID\): /m);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
