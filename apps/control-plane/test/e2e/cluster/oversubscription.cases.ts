/**
 * Oversubscription end to end, with real processes: an agent whose modules file names the
 * built-in usage estimator (`arbiter:usage`) and load QoS controller (`arbiter:load`, its load
 * read from a file the test writes) reports as revocable what its regular task holds and does
 * not use; a REVOCABLE_RESOURCES framework is offered those and launches a task on them; the
 * load goes over the threshold and the revocable task is killed with Mesos's
 * REASON_CONTAINER_PREEMPTED while the regular task keeps running. Rounds are driven by tick()
 * with an injected clock (no timer).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '@arbiter/agent';
import { Resources } from '@arbiter/allocator';
import type { ResourceEntry } from '@arbiter/contracts';
import { loadModules, readModulesFile } from '@arbiter/modules';
import pino from 'pino';
import { ADMIN_TOKEN, closeStarted, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { Recorder } from '../../support/recorder';
import { until } from '../../support/until';

let t: TestControlPlane;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-oversubscription-test-'));
fs.chmodSync(dir, 0o711);
const closers: Array<() => unknown> = [];

beforeAll(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1 } })), STARTUP_TIMEOUT_MS);
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await closeStarted(t);
  fs.rmSync(dir, { recursive: true, force: true });
}, STARTUP_TIMEOUT_MS);

/** One sample of the control plane's /metrics (undefined when absent). */
const metric = async (sample: string) => {
  const text = await (await fetch(`${t.cp.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
};
const totalOf = async (id: string) =>
  Resources.of((await ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id } } }))).resources as ResourceEntry[]);

it('reports unused resources as revocable, and preempts the revocable task when the agent gets busy while the regular one runs on', async () => {
  const loadFile = path.join(dir, 'loadavg');
  fs.writeFileSync(loadFile, '0.10 0.10 0.10 1/100 1\n');
  const modulesFile = path.join(dir, 'modules.json');
  fs.writeFileSync(
    modulesFile,
    JSON.stringify({
      modules: [
        { use: 'arbiter:usage', parameters: { margin: 0.2 } },
        { use: 'arbiter:load', parameters: { threshold1: 4, loadFile: './loadavg' } },
      ],
    }),
  );
  const modules = await loadModules(readModulesFile(modulesFile), { host: 'agent' });
  let clock = 1_000_000;
  const agent = new Agent({
    master: t.cp.url,
    token: await t.cp.issueServiceToken('oversubscribed-principal'),
    hostname: 'oversubscribed-host',
    resources: Resources.fromScalars({ cpus: 2, mem: 1024 }).toJSON(),
    attributes: {},
    workDir: path.join(dir, 'agent'),
    modules,
    oversubscription: { intervalMs: 0, now: () => clock },
    killTasksOnExit: true,
    logger: pino({ level: 'silent' }),
  });
  closers.push(() => agent.stop());
  agent.start();
  await until(() => agent.id !== undefined);
  const agentId = agent.id ?? '';
  const over = agent.oversubscription;
  if (!over) throw new Error('the modules should have started oversubscription');

  const r = new Recorder(t, { name: 'batch', roles: ['batch'], capabilities: ['REVOCABLE_RESOURCES'] });
  closers.push(() => r.s.close());
  await r.s.start();
  // A regular task holding 1 cpu and 512 MB, using next to nothing.
  await until(() => r.offers.some((o) => o.agentId === agentId), 10_000, 'the first offer');
  const first = r.offers.splice(0).find((o) => o.agentId === agentId);
  await r.s.launch(first ?? r.offers[0], [
    {
      taskId: 'regular',
      name: 'regular',
      command: { shell: 'sleep 600' },
      resources: Resources.fromScalars({ cpus: 1, mem: 512 }).toJSON(),
    },
  ]);
  await until(() => r.states('regular').includes('RUNNING'), 20_000, 'the regular task running');

  // Two rounds: the task measured twice, its idle allocation less 20% reported as revocable.
  await over.tick();
  clock += 1_000;
  await over.tick();
  expect(over.stats.reports).toBe(1);
  const revocableCpus = over.stats.revocable.cpus;
  expect(revocableCpus).toBeGreaterThan(0.6);
  expect(revocableCpus).toBeLessThanOrEqual(0.8);
  expect(over.stats.revocable.mem).toBeGreaterThan(300);
  expect(over.stats.revocable.mem).toBeLessThanOrEqual(0.8 * 512);
  await until(async () => (await totalOf(agentId)).revocable().get('cpus') === revocableCpus, 10_000, 'the revocable total stored');
  expect((await totalOf(agentId)).nonRevocable().get('cpus')).toBe(2);

  // The framework is offered them and runs a task on revocable cpus and memory.
  await until(
    () => r.offers.some((o) => o.agentId === agentId && Resources.of(o.resources).revocable().get('cpus') > 0.5),
    10_000,
    'an offer of revocable cpus',
  );
  const withRevocable = r.offers.find((o) => o.agentId === agentId && Resources.of(o.resources).revocable().get('cpus') > 0.5);
  await r.s.launch(withRevocable ?? r.offers[0], [
    {
      taskId: 'best-effort',
      name: 'best-effort',
      command: { shell: 'sleep 600' },
      resources: [
        { name: 'cpus', value: 0.5, revocable: true },
        { name: 'mem', value: 64, revocable: true },
      ],
    },
  ]);
  await until(() => r.states('best-effort').includes('RUNNING'), 20_000, 'the revocable task running');
  expect(await metric('arbiter_revocable_resources{resource="cpus",kind="total"}')).toBe(revocableCpus);
  // The task's 0.5, and what is left of them when it is offered again meanwhile.
  expect(await metric('arbiter_revocable_resources{resource="cpus",kind="allocated"}')).toBeGreaterThanOrEqual(0.5);
  expect(await metric('arbiter_revocable_resources{resource="cpus",kind="allocated"}')).toBeLessThanOrEqual(revocableCpus);

  // Quiet machine: nothing is preempted.
  clock += 1_000;
  await over.tick();
  expect(over.stats.evictions).toBe(0);

  // The agent gets busy: the revocable task is preempted, the regular one runs on.
  fs.writeFileSync(loadFile, '9.50 3.00 1.00 4/100 1\n');
  clock += 1_000;
  await over.tick();
  expect(over.stats.evictions).toBe(1);
  await until(() => r.states('best-effort').includes('KILLED'), 20_000, 'the revocable task killed');
  const killed = r.updates.find((u) => u.taskId === 'best-effort' && u.state === 'KILLED');
  expect(killed?.reason).toBe('REASON_CONTAINER_PREEMPTED');
  expect(killed?.message).toContain('1-minute load average 9.5 is over 4');
  expect(r.states('regular')).toEqual(['STARTING', 'RUNNING']);
  await until(
    async () => (await metric('arbiter_task_ends_total{state="KILLED",reason="REASON_CONTAINER_PREEMPTED"}')) === 1,
    10_000,
    'the preemption counted',
  );
  expect(agent.tasks.has(r.s.frameworkId ?? '', 'regular')).toBe(true);
});
