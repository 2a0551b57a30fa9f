/**
 * /metrics carries the allocator and the cluster: cycles, offers by outcome, filters, agents,
 * frameworks, tasks by state and how they ended, status updates and their lag, and per role
 * the dominant share, what its tasks use and its offers hold, and its quota.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

let t: TestControlPlane;
const closers: Array<() => void> = [];
beforeAll(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1 } })));
afterAll(async () => {
  for (const c of closers) c();
  await t.close();
});

/** The samples of a scrape, by name and labels as written: `name{a="1",b="2"}`. */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${t.cp.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const i = line.lastIndexOf(' ');
    samples.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return samples;
}
const value = async (sample: string) => (await scrape()).get(sample);

it('exports the allocator and the cluster, from a task launched to its end', async () => {
  const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'metrics-host',
    resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON(),
  });
  closers.push(() => agent.close());
  await agent.register();
  await ok(t.client.PUT('/api/v1/quota', { body: { quotas: [{ role: 'ml', guarantees: 'cpus:1;mem:128' }], force: false } }));
  const f = new Recorder(t, { name: 'metered', roles: ['ml'] });
  closers.push(() => f.s.close());
  await f.s.start();
  const offer = await f.nextOffer();
  await f.s.launch(
    offer,
    [{ taskId: 'm1', name: 'm1', command: { shell: 'sleep 100' }, resources: Resources.fromScalars({ cpus: 1, mem: 128 }).toJSON() }],
    { refuseSeconds: 60 },
  );
  await until(() => f.states('m1').includes('RUNNING'));

  let m = await scrape();
  expect(m.get('arbiter_leader')).toBe(1);
  expect(m.get('arbiter_agents{connection="connected"}')).toBe(1);
  expect(m.get('arbiter_frameworks{connection="connected"}')).toBe(1);
  expect(m.get('arbiter_tasks{state="RUNNING"}')).toBe(1);
  expect(m.get('arbiter_role_resources{role="ml",resource="cpus",kind="allocated"}')).toBe(1);
  expect(m.get('arbiter_role_resources{role="ml",resource="mem",kind="allocated"}')).toBe(128);
  expect(m.get('arbiter_role_quota{role="ml",resource="cpus",kind="guarantee"}')).toBe(1);
  expect(m.get('arbiter_role_quota{role="ml",resource="cpus",kind="consumed"}')).toBe(1);
  expect(m.get('arbiter_role_dominant_share{role="ml"}')).toBeCloseTo(0.25, 9);
  expect(m.get('arbiter_offers_total{outcome="made"}')).toBeGreaterThanOrEqual(1);
  expect(m.get('arbiter_offers_total{outcome="accepted"}')).toBe(1);
  // The unused part of the offer came back with a 60 s filter.
  expect(m.get('arbiter_offer_filters')).toBe(1);
  expect(m.get('arbiter_status_updates_total{source="SOURCE_AGENT"}')).toBe(2);
  expect(m.get('arbiter_status_update_lag_seconds_count')).toBe(2);
  const cycles = defined(m.get('arbiter_allocation_cycles_total'));
  expect(cycles).toBeGreaterThan(0);
  expect(m.get('arbiter_allocation_cycle_duration_seconds_count')).toBe(cycles);
  expect(m.get('arbiter_acknowledgements_total')).toBeGreaterThanOrEqual(1);

  // The task ends: counted by state and reason, no longer live.
  await agent.status(defined(f.s.frameworkId), 'm1', 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED');
  await until(async () => (await value('arbiter_task_ends_total{state="FAILED",reason="REASON_COMMAND_EXECUTOR_FAILED"}')) === 1);
  m = await scrape();
  expect(m.get('arbiter_tasks{state="RUNNING"}')).toBeUndefined();
  expect(m.get('arbiter_role_resources{role="ml",resource="cpus",kind="allocated"}')).toBeUndefined();

  // A disconnected framework's offers are rescinded and counted: one from a second agent is out.
  const second = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'metrics-host-2',
    resources: Resources.fromScalars({ cpus: 2, mem: 1024 }).toJSON(),
  });
  closers.push(() => second.close());
  await second.register();
  await until(async () => ((await value('arbiter_offers_outstanding')) ?? 0) >= 1);
  const outstanding = defined(await value('arbiter_offers_outstanding'));
  f.s.close();
  await until(
    async () =>
      (await value('arbiter_frameworks{connection="disconnected"}')) === 1 ||
      (await value('arbiter_frameworks{connection="connected"}')) === 0,
  );
  m = await scrape();
  expect(m.get('arbiter_offers_outstanding')).toBe(0);
  // Every offer made has one outcome: the disconnection rescinded all that were out, those seen
  // before it and any the next cycle made meanwhile (the failed task's resources came back).
  const outcome = (o: string) => m.get(`arbiter_offers_total{outcome="${o}"}`) ?? 0;
  expect(outcome('rescinded')).toBeGreaterThanOrEqual(outstanding);
  expect(outcome('made')).toBe(outcome('accepted') + outcome('declined') + outcome('rescinded'));
});

it('documents every metric it exports, and the Grafana dashboard uses only metrics it exports', async () => {
  const root = path.resolve(__dirname, '../../../../..');
  const text = await (await fetch(`${t.cp.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const exported = new Set([...text.matchAll(/^# HELP (arbiter_\w+)/gm)].map((m) => m[1]));
  const own = [...exported].filter((name) => !/^arbiter_(process|nodejs)_/.test(name));
  const docs = fs.readFileSync(path.join(root, 'docs/metrics.md'), 'utf8');
  expect(own.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  const dashboard = fs.readFileSync(path.join(root, 'docker/grafana/arbiter-dashboard.json'), 'utf8');
  const used = new Set([...dashboard.matchAll(/\barbiter_\w+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')));
  expect(used.size).toBeGreaterThan(10);
  expect([...used].filter((name) => !exported.has(name))).toEqual([]);
});
