/**
 * Modules in the control plane, loaded from its configuration (a modules file naming packages
 * written to a temporary directory here, as an operator's installed ones): a task-launch hook
 * decorates tasks and refuses one (the SDK's accept fails TASK_REFUSED_BY_MODULE, a Mesos
 * framework gets TASK_ERROR with the reason); a throwing hook and a hanging one are counted
 * and the task launches undecorated; a sorter module orders the roles, in the allocator and in
 * what-if; a module that cannot be loaded stops the start with one sentence.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseResources } from '@arbiter/allocator';
import type { TaskSpec } from '@arbiter/contracts';
import { readModulesFile } from '@arbiter/modules';
import { SchedulerError } from '@arbiter/scheduler-sdk';
import { ADMIN_TOKEN, controlPlaneBed, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { MesosClient } from '../../support/mesos-client';
import { Recorder } from '../../support/recorder';
import { until } from '../../support/until';

const { closers, start } = controlPlaneBed();

/** A task-launch hook: labels and environment from its parameters; refuses `forbidden-*`; throws on `throw`, never answers `hang`. */
const LAUNCH_POLICY = `
exports.default = {
  name: 'launch-policy',
  apiVersion: 1,
  points: ['control-plane:task-launch'],
  create(parameters) {
    return {
      taskLaunch(input) {
        const name = input.task.name;
        if (name.startsWith('forbidden')) return { refuse: 'tasks named forbidden-* are not allowed on ' + input.hostname };
        if (name === 'throw') throw new Error('the policy service is down');
        if (name === 'hang') return new Promise(() => {});
        return { labels: [{ key: 'team', value: parameters.team }], environment: { INJECTED: input.role } };
      },
    };
  },
};`;

/** A sorter: the roles in `parameters.first` before the others, then by name; shares 0. Plain JS on the ClientSorter interface. */
const FIRST_SORTER = `
module.exports = {
  name: 'first-sorter',
  apiVersion: 1,
  points: ['allocator:sorter'],
  create(parameters) {
    const rank = (c) => { const i = parameters.first.indexOf(c); return i < 0 ? parameters.first.length : i; };
    return {
      sorter() {
        const clients = new Map();
        return {
          add: (c) => clients.set(c, false),
          activate: (c) => clients.set(c, true),
          deactivate: (c) => clients.set(c, false),
          contains: (c) => clients.has(c),
          setWeight() {}, allocated() {}, unallocated() {}, addTotal() {}, removeTotal() {},
          sort: () => [...clients].filter(([, a]) => a).map(([c]) => c).sort((x, y) => rank(x) - rank(y) || (x < y ? -1 : x > y ? 1 : 0)),
          share: () => 0,
        };
      },
    };
  },
};`;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-cp-modules-'));
  const pkg = path.join(dir, 'node_modules', '@acme', 'launch-policy');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@acme/launch-policy', version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(pkg, 'index.js'), LAUNCH_POLICY);
  fs.writeFileSync(path.join(dir, 'first-sorter.js'), FIRST_SORTER);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes the modules file and reads it as `--modules` does. */
function modules(entries: unknown[], hookTimeoutMs = 300) {
  const file = path.join(dir, 'modules.json');
  fs.writeFileSync(file, JSON.stringify({ hookTimeoutMs, modules: entries }));
  return readModulesFile(file);
}

const agentOf = async (cp: TestControlPlane, hostname: string) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname, resources: parseResources('cpus:8;mem:8192').toJSON() });
  closers.push(() => a.close());
  await a.register();
  return a;
};
const task = (name: string): TaskSpec => ({
  taskId: name,
  name,
  command: { shell: 'true' },
  resources: [{ name: 'cpus', value: 1 }],
  labels: [{ key: 'app', value: 'web' }],
  env: { MINE: '1' },
});
const metric = async (cp: TestControlPlane, outcome: string) => {
  const text = await (await fetch(`${cp.cp.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`arbiter_module_calls{module="launch-policy",point="control-plane:task-launch",outcome="${outcome}"}`));
  return Number(line?.split(' ').pop());
};

describe('modules in the control plane', () => {
  it('a task-launch hook decorates, refuses, and fails or hangs without stopping the launch', async () => {
    const cp = await start({
      config: { allocationInterval: 0.1, modules: modules([{ use: '@acme/launch-policy', parameters: { team: 'infra' } }]) },
    });
    const agent = await agentOf(cp, 'hooked-1');
    const r = new Recorder(cp, { name: 'hooks', roles: ['web'] });
    closers.push(() => r.s.close());
    await r.s.start();
    const launch = async (name: string) => r.s.launch(await r.nextOffer(), [task(name)], { refuseSeconds: 0 });

    await launch('decorated');
    await until(() => agent.launches.length === 1);
    expect(agent.launches[0].task).toMatchObject({
      taskId: 'decorated',
      labels: [
        { key: 'app', value: 'web' },
        { key: 'team', value: 'infra' },
      ],
      env: { MINE: '1', INJECTED: 'web' },
    });
    // Stored as launched: the API shows the decorated labels.
    const stored = await cp.request('GET', `/api/v1/tasks?frameworkId=${String(r.s.frameworkId)}`);
    expect((stored.body as { items: Array<{ labels?: unknown }> }).items[0].labels).toEqual(agent.launches[0].task.labels);

    // A refused accept takes nothing: its offer stays outstanding for the next launch.
    const offer = await r.nextOffer();
    const refused = await r.s.launch(offer, [task('forbidden-1')], { refuseSeconds: 0 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SchedulerError);
    expect(`${(refused as SchedulerError).code}: ${(refused as SchedulerError).message}`).toBe(
      "TASK_REFUSED_BY_MODULE: task 'forbidden-1' was refused by module launch-policy: tasks named forbidden-* are not allowed on hooked-1",
    );

    const started = Date.now();
    await r.s.launch(offer, [task('throw')], { refuseSeconds: 0 });
    await launch('hang');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    await until(() => agent.launches.length === 3);
    expect(agent.launches.slice(1).map((l) => [l.task.taskId, l.task.labels, l.task.env])).toEqual([
      ['throw', [{ key: 'app', value: 'web' }], { MINE: '1' }],
      ['hang', [{ key: 'app', value: 'web' }], { MINE: '1' }],
    ]);
    expect([await metric(cp, 'called'), await metric(cp, 'failed'), await metric(cp, 'timed_out')]).toEqual([4, 1, 1]);
  });

  it('a refusal reaches a Mesos framework as TASK_ERROR with the reason', async () => {
    const cp = await start({
      config: { allocationInterval: 0.1, modules: modules([{ use: '@acme/launch-policy', parameters: { team: 'x' } }]) },
    });
    await agentOf(cp, 'hooked-2');
    const c = new MesosClient(cp.cp.url, `Bearer ${ADMIN_TOKEN}`);
    closers.push(() => c.close());
    await c.subscribe({ user: 'nobody', name: 'mesos-hooks', role: 'web' });
    await until(() => c.of<{ offers: unknown[] }>('OFFERS').length > 0);
    const offer = c.of<{ offers: Array<{ id: { value: string }; agent_id: { value: string } }> }>('OFFERS')[0].offers[0];
    const info = {
      name: 'forbidden-2',
      task_id: { value: 'forbidden-2' },
      agent_id: offer.agent_id,
      resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
      command: { value: 'true' },
    };
    expect((await c.launch([offer.id], [info])).status).toBe(202);
    await until(() => c.of('UPDATE').length > 0);
    expect(c.of<{ status: Record<string, unknown> }>('UPDATE')[0].status).toMatchObject({
      task_id: { value: 'forbidden-2' },
      state: 'TASK_ERROR',
      reason: 'REASON_TASK_INVALID',
      message: "task 'forbidden-2' was refused by module launch-policy: tasks named forbidden-* are not allowed on hooked-2",
    });
  });

  it('a sorter module orders the roles the allocator offers to', async () => {
    const cp = await start({
      config: { allocationInterval: 0.1, modules: modules([{ use: './first-sorter.js', parameters: { first: ['zeta'] } }]) },
    });
    const recorders = ['alpha', 'zeta'].map((role) => {
      const r = new Recorder(cp, { name: role, roles: [role] });
      closers.push(() => r.s.close());
      return r;
    });
    for (const r of recorders) await r.s.start();
    // One agent whose whole resources go to the first role: DRF would pick alpha (both at 0, by name).
    await agentOf(cp, 'sorted-1');
    await until(() => recorders.some((r) => r.offers.length > 0));
    expect(recorders.map((r) => r.offers.length)).toEqual([0, 1]);
    // What-if runs the same sorter in its worker (outstanding offers come back in the prediction).
    const sim = await cp.request('POST', '/api/v1/simulate', { change: {}, cycles: 1 });
    expect(sim.status).toBe(200);
    const body = sim.body as { frameworks: Record<string, string>; baseline: Array<{ offers: Array<{ frameworkId: string }> }> };
    expect(body.baseline[0].offers.map((o) => body.frameworks[o.frameworkId])).toEqual(['zeta']);
  });

  it('a module that cannot be loaded stops the start with one sentence', async () => {
    const file = modules([{ use: '@acme/launch-policy' }, { use: '@acme/not-installed' }]);
    const err = await startTestControlPlane({ config: { modules: file } }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(
      new RegExp(
        `^module '@acme/not-installed' \\(${file.file.replace(/[.]/g, '\\.')}\\) could not be loaded: Cannot find module '@acme/not-installed'[^\\n]*\\.$`,
      ),
    );
  });
});
