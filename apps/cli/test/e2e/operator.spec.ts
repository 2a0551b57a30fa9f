/**
 * The operator CLI against a live cluster: `arbiter control-plane` on its own PostgreSQL
 * database, two `arbiter agent`s and a framework (`arbiter example batch`) as processes; every
 * command run as an operator types it, in a child process, its output and exit code checked.
 * An operator follows a task and kills it, drains an agent under a running task, sets quota and
 * weights, runs maintenance, and reads the audit log and the allocation history from the
 * terminal alone; a viewer is refused what it may not do, and nothing changes.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { until } from '@arbiter/test-support';
import { ADMIN_TOKEN } from '../../../control-plane/test/support/admin-token';
import { freshDatabase } from '../../../control-plane/test/support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../../control-plane/test/support/process';
import { untilAgents } from './npx-arbiter';
import { arbiter, type Cli, json, Running, stopAll } from './operator-support';

interface Page<T> {
  items: T[];
  total: number;
}
interface Agent {
  id: string;
  hostname: string;
  activated: boolean;
  drainState: string | null;
  status: string;
}
interface Task {
  id: string;
  name: string;
  state: string;
  agentId: string;
  history: Array<{ state: string }>;
}

describe('arbiter: the operator CLI on a live cluster', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let cp: ControlPlaneProcess;
  let dir: string;
  const agents: AgentProcess[] = [];
  /** As the operator works: the master and the admin token in the environment. */
  const admin = () => ({ ARBITER_MASTER: cp.url, ARBITER_TOKEN: ADMIN_TOKEN });
  const op = (...args: string[]) => arbiter(args, admin());
  const ok = (r: Cli) => {
    if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}${r.stdout}`);
    return r;
  };
  const agentsNow = async () => json<Page<Agent>>(ok(await op('agents', 'list', '--json'))).items;
  const tasksNow = async (state?: string) =>
    json<Page<Task>>(ok(await op('tasks', 'list', '--json', ...(state ? ['--state', state] : [])))).items;

  beforeAll(async () => {
    db = await freshDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-operator-cli-'));
    fs.chmodSync(dir, 0o711);
    cp = await spawnControlPlane({ DATABASE_URL: db.url, PORT: '0', ARBITER_ADMIN_TOKEN: ADMIN_TOKEN, ARBITER_ALLOCATION_INTERVAL: '0.2' });
    for (const name of ['op-node-1', 'op-node-2']) {
      const agent = new AgentProcess(name, path.join(dir, name), 'cpus:2;mem:2048');
      agent.start(cp.url, ADMIN_TOKEN);
      agents.push(agent);
    }
    await untilAgents(cp.url, ADMIN_TOKEN, 2);
  });

  afterAll(async () => {
    await stopAll();
    for (const agent of agents) await agent.killWithTasks();
    await cp.stop();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists agents as an aligned table, and as JSON for scripts', async () => {
    const r = ok(await op('agents', 'list'));
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +HOSTNAME +STATE +TASKS +CPUS +MEM +MAINTENANCE +SEEN$/);
    expect(lines.slice(1).map((l) => l.split(/ +/).slice(1, 3))).toEqual([
      ['op-node-1', 'ACTIVE'],
      ['op-node-2', 'ACTIVE'],
    ]);
    // Columns line up: each row's hostname starts where the header's does.
    const at = lines[0].indexOf('HOSTNAME');
    for (const line of lines.slice(1)) expect(line.slice(at)).toMatch(/^op-node-\d /);
    const list = await agentsNow();
    expect(list.map((a) => a.hostname)).toEqual(['op-node-1', 'op-node-2']);
    const shown = ok(await op('agents', 'show', list[0].id));
    expect(shown.stdout).toMatch(/^Hostname: +op-node-1$/m);
    expect(shown.stdout).toMatch(/^Resources: +cpus:2;mem:2048$/m);
  });

  it('follows a task from launch to its kill: tasks list, tasks show --watch, task kill --wait', async () => {
    // The framework: stopped with the rest in afterAll.
    new Running(['example', 'batch', '--master', cp.url, '--token', ADMIN_TOKEN, 'sleep 300', 'sleep 301'], {});
    await until(async () => (await tasksNow('running')).length === 2, 30_000, 'two tasks running');
    const listed = ok(await op('tasks', 'list', '--state', 'TASK_RUNNING'));
    expect(listed.stdout).toMatch(/^ID +NAME +STATE +FRAMEWORK +AGENT +ROLE +RESOURCES +UPDATED$/m);
    expect(listed.stdout.match(/ sleep 30[01] +RUNNING /g)).toHaveLength(2);
    const task = (await tasksNow('running')).find((t) => t.name === 'sleep 300');
    if (!task) throw new Error('no task sleep 300');

    // The operator watches the task in one terminal and kills it from another.
    const watch = new Running(['tasks', 'show', task.id, '--watch', '0.2'], admin());
    await until(() => /^State: +RUNNING$/m.test(watch.stdout), 'the watch shows the task running');
    const killed = ok(await op('task', 'kill', task.id, '--grace', '1', '--wait'));
    expect(killed.stdout.trim()).toBe(`task ${task.id} (sleep 300) is KILLED`);
    // The watch ends by itself once the task has ended, its last view the whole history.
    expect(await watch.exited).toBe(0);
    const last = watch.stdout.slice(watch.stdout.lastIndexOf('every 0.2 s'));
    expect(last).toMatch(/^State: +KILLED$/m);
    expect(last).toMatch(/RUNNING +SOURCE_AGENT/);
    expect(last).toMatch(/KILLED +SOURCE_AGENT +REASON_TASK_KILLED/);
    const asJson = json<Task>(ok(await op('tasks', 'show', task.id, '--json')));
    expect(asJson.history.map((h) => h.state)).toEqual(['STARTING', 'RUNNING', 'KILLED']);
  });

  it('drains the agent under a running task: the task is killed, the agent DRAINED; a second drain is a conflict (exit 1)', async () => {
    const task = (await tasksNow('running'))[0];
    const agent = (await agentsNow()).find((a) => a.id === task.agentId);
    if (!agent) throw new Error("no task's agent");
    // Two terminals follow the cluster's events: the task, and the agents (one JSON line per view).
    const taskView = new Running(['tasks', 'show', task.id, '--follow'], admin());
    const agentsView = new Running(['agents', 'list', '--follow', '--json'], admin());
    const views = () =>
      agentsView.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as Page<Agent>).items);
    await until(() => /^State: +RUNNING$/m.test(taskView.stdout) && views().length === 1, 'both views shown');
    const drained = ok(await op('agent', 'drain', agent.id, '--grace', '0'));
    expect(drained.stdout.trim()).toBe(`agent ${agent.id} (${agent.hostname}) is DRAINING: 1 task(s) left`);
    // The task's view ends by itself once the drain has killed it.
    expect(await taskView.exited).toBe(0);
    expect(/^State: +(\w+)$/m.exec(taskView.stdout.slice(taskView.stdout.lastIndexOf('following the cluster')))?.[1]).toBe('KILLED');
    // The agents' view is printed again on the events, well before its 30 s refresh.
    await until(
      () => views().some((items) => items.find((a) => a.id === agent.id)?.drainState === 'DRAINED'),
      10_000,
      'the agent DRAINED, followed',
    );
    const listed = ok(await op('agents', 'list', '--drain-state', 'drained'));
    expect(listed.stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${agent.id} +${agent.hostname} +DRAINED +0 `)),
    ]);

    const again = await op('agent', 'drain', agent.id);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      /^arbiter: conflict \(AGENT_ALREADY_DRAINING\): agent .* is already DRAINED; reactivate it before draining it again\n$/,
    );

    expect(ok(await op('agent', 'reactivate', agent.id)).stdout.trim()).toBe(`agent ${agent.id} (${agent.hostname}) is active again`);
    expect(ok(await op('agent', 'deactivate', agent.id)).stdout).toContain('is deactivated: no offers for it');
    // An operator's change with no task involved reaches the followers too (the control plane's agent.updated).
    const shown = (items: Agent[]) => items.find((a) => a.id === agent.id);
    await until(
      () => views().some((items) => shown(items)?.activated === false && shown(items)?.drainState === null),
      10_000,
      'the deactivation, followed',
    );
    expect(await agentsView.stop()).toBe(0);
    const after = json<Agent>(ok(await op('agents', 'show', agent.id, '--json')));
    expect([after.activated, after.drainState]).toEqual([false, null]);
    ok(await op('agent', 'reactivate', agent.id));
  });

  it('sets quota and weights, shows them on the role, removes the quota; a second removal is not found (exit 3)', async () => {
    const set = ok(await op('quota', 'set', 'batch', '--guarantee', 'cpus:1;mem:256', '--limit', 'cpus:2'));
    expect(set.stdout.trim()).toBe('quota of batch: guarantee cpus:1 mem:256, limit cpus:2');
    expect(json<Array<{ role: string; limits: object }>>(ok(await op('quota', 'list', '--json')))).toEqual([
      { role: 'batch', guarantees: { cpus: 1, mem: 256 }, limits: { cpus: 2 } },
    ]);
    expect(
      ok(await op('weights', 'set', 'batch=3', 'eng=0.5'))
        .stdout.trim()
        .split('\n'),
    ).toEqual(['weight of batch: 3', 'weight of eng: 0.5']);
    const role = ok(await op('roles', 'show', 'batch'));
    expect(role.stdout).toMatch(/^Weight: +3$/m);
    expect(role.stdout).toMatch(/^Quota: +guarantee cpus:1 mem:256, limit cpus:2$/m);
    expect(ok(await op('roles', 'list')).stdout).toMatch(/^batch +3 +.* +guarantee cpus:1 mem:256, limit cpus:2 +\d+$/m);

    expect(ok(await op('quota', 'rm', 'batch')).stdout.trim()).toBe('quota of batch removed');
    const gone = await op('quota', 'rm', 'batch');
    expect([gone.code, gone.stderr]).toEqual([
      3,
      "arbiter: not found (QUOTA_NOT_FOUND): role 'batch' has no quota; GET /api/v1/quota lists them\n",
    ]);
    const nested = await op('quota', 'set', 'batch/x', '--limit', 'cpus:1');
    expect(nested.code).toBe(1);
    expect(nested.stderr).toMatch(/^arbiter: invalid request \(QUOTA_HIERARCHY_VIOLATION\): /);
    // Refused before anything is sent: a usage error.
    const bad = await op('weights', 'set', 'eng=-1');
    expect([bad.code, bad.stderr]).toEqual([2, "arbiter: 'eng=-1' must read ROLE=WEIGHT with a positive weight, e.g. eng=2\n"]);
    expect(json<Array<{ role: string; weight: number }>>(ok(await op('weights', 'list', '--json')))).toContainEqual({
      role: 'eng',
      weight: 0.5,
    });
  });

  it('reserves and unreserves, runs maintenance and edits the whitelist', async () => {
    const node2 = (await agentsNow()).find((a) => a.hostname === 'op-node-2');
    if (!node2) throw new Error('no op-node-2');
    const reserved = ok(await op('reserve', node2.id, 'eng', 'cpus:0.5;mem:128', '--label', 'team=ml', '--json'));
    const reservation = json<{ id: string; role: string; labels: object }>(reserved);
    expect(reservation).toMatchObject({ role: 'eng', labels: { team: 'ml' } });
    expect(ok(await op('reservations', 'list', '--role', 'eng')).stdout).toContain(reservation.id);
    expect(ok(await op('unreserve', reservation.id)).stdout.trim()).toBe(`reservation ${reservation.id} removed`);
    expect((await op('unreserve', reservation.id)).code).toBe(3);

    const scheduled = ok(await op('maintenance', 'schedule', 'op-node-2', '--start', '2030-01-01T00:00:00Z', '--duration', '2h'));
    expect(scheduled.stdout.trim().split('\n')).toEqual([
      'MACHINES   START                     DURATION',
      'op-node-2  2030-01-01T00:00:00.000Z  7200s',
    ]);
    expect(
      ok(await op('maintenance', 'status'))
        .stdout.trim()
        .split('\n')[1],
    ).toMatch(/^op-node-2 +DRAINING/);
    expect(ok(await op('maintenance', 'start', 'op-node-2')).stdout).toMatch(/^op-node-2 +DOWN/m);
    expect(ok(await op('maintenance', 'stop', 'op-node-2')).stdout).toContain('(no machine in maintenance)');
    expect(ok(await op('maintenance', 'schedule')).stdout.trim()).toBe('(no maintenance scheduled)');

    expect(ok(await op('whitelist', 'set', 'op-node-1', 'op-node-2')).stdout.trim()).toBe('op-node-1\nop-node-2');
    expect(ok(await op('whitelist', 'rm', 'op-node-2')).stdout.trim()).toBe('op-node-1');
    expect(ok(await op('whitelist', 'clear')).stdout.trim()).toBe('no whitelist: every agent is offered');
    expect(ok(await op('whitelist')).stdout.trim()).toBe('no whitelist: every agent is offered');
  });

  it('reads the audit log and the allocation history with filters and --since; explains a framework', async () => {
    const audit = json<Page<{ action: string; actor: string }>>(
      ok(await op('audit', '--action', 'agent.drain', '--since', '10m', '--json')),
    );
    expect(audit.items).toEqual([expect.objectContaining({ action: 'agent.drain', actor: 'admin' })]);
    const table = ok(await op('audit', '--action', 'quota.update', '--target-type', 'role', '--limit', '5'));
    expect(table.stdout).toMatch(/^AT +ACTOR +ACTION +TARGET +CHANGE$/m);
    expect(table.stdout).toMatch(/ admin +quota\.update +role batch /);
    // Nothing from the future.
    expect(json<Page<unknown>>(ok(await op('audit', '--since', '2030-01-01', '--json'))).items).toEqual([]);
    const badSince = await op('audit', '--since', 'yesterday');
    expect(badSince.code).toBe(2);

    const history = json<Page<{ id: string; offerCount: number }>>(ok(await op('history', '--since', '10m', '--limit', '3', '--json')));
    expect(history.items.length).toBeGreaterThan(0);
    const cycle = ok(await op('history', 'show', history.items[0].id));
    expect(cycle.stdout).toMatch(new RegExp(`^Cycle: +${history.items[0].id}$`, 'm'));

    const framework = json<Page<{ id: string; name: string }>>(ok(await op('frameworks', 'list', '--json'))).items[0];
    expect(framework.name).toBe('batch');
    const explained = ok(await op('explain', framework.id));
    expect(explained.stdout).toMatch(new RegExp(`^framework ${framework.id}: \\d+ offer\\(s\\) in the last \\d+ cycle\\(s\\)$`, 'm'));
    expect(ok(await op('offers', 'list', '--framework', framework.id)).stdout).toMatch(
      /^ID +STATE +FRAMEWORK +AGENT +ROLE +RESOURCES +CREATED$/m,
    );
    expect((await op('explain', 'no-such-framework')).code).toBe(3);
  });

  it('refuses a viewer what it may not do (exit 4), changing nothing; reads what it may', async () => {
    ok(await op('principal', 'create', 'cli-viewer', '--kind', 'viewer'));
    const token = ok(await op('token', 'create', '--principal', 'cli-viewer')).stdout.trim();
    const viewer = { ARBITER_MASTER: cp.url, ARBITER_TOKEN: token };
    const target = (await agentsNow())[0];
    const refused = await arbiter(['agent', 'drain', target.id], viewer);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^arbiter: forbidden \(FORBIDDEN\): principal 'cli-viewer' \(VIEWER\) may not /);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect((await arbiter(['quota', 'set', 'batch', '--limit', 'cpus:1'], viewer)).code).toBe(4);
    expect(json<Agent>(ok(await op('agents', 'show', target.id, '--json')))).toMatchObject({ activated: true, drainState: null });
    expect(json<unknown[]>(ok(await op('quota', 'list', '--json')))).toEqual([]);
    // What a viewer may read, it reads.
    expect((await arbiter(['agents', 'list'], viewer)).code).toBe(0);
    const bad = await arbiter(['agents', 'list'], { ...viewer, ARBITER_TOKEN: 'arb_not_a_token' });
    expect([bad.code, bad.stderr]).toEqual([4, expect.stringMatching(/^arbiter: not authenticated \(AUTH_TOKEN_INVALID\): /)]);
  });

  it('finds master and token in $XDG_CONFIG_HOME/arbiter/config, fails over along the master list, follows a 307', async () => {
    const home = path.join(dir, 'home');
    const xdg = path.join(home, 'xdg');
    fs.mkdirSync(path.join(xdg, 'arbiter'), { recursive: true });
    const tokenFile = path.join(home, 'admin-token');
    fs.writeFileSync(tokenFile, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    // The first URL answers nothing: the second, the control plane, does.
    fs.writeFileSync(
      path.join(xdg, 'arbiter', 'config'),
      `# the operator's cluster\nmaster = http://127.0.0.1:1,${cp.url}\ntoken-file = ${tokenFile}\n\n[down]\nmaster = http://127.0.0.1:1\n`,
    );
    const bare = {
      HOME: home,
      XDG_CONFIG_HOME: xdg,
      ARBITER_MASTER: undefined,
      ARBITER_URL: undefined,
      ARBITER_TOKEN: undefined,
      ARBITER_ADMIN_TOKEN: undefined,
      ARBITER_TOKEN_FILE: undefined,
    };
    const fromConfig = await arbiter(['agents', 'list'], bare);
    expect([fromConfig.code, fromConfig.stderr]).toEqual([0, '']);
    expect(fromConfig.stdout).toContain('op-node-1');
    const down = await arbiter(['agents', 'list', '--profile', 'down'], bare);
    expect([down.code, down.stderr]).toEqual([
      5,
      expect.stringMatching(/^arbiter: unreachable: no control plane answered: http:\/\/127\.0\.0\.1:1 \(.+\)\n$/),
    ]);
    const none = await arbiter(['agents', 'list'], { ...bare, XDG_CONFIG_HOME: path.join(home, 'empty') });
    expect([none.code, none.stderr]).toEqual([
      2,
      expect.stringMatching(/^arbiter: no control plane given: pass --master URL, set ARBITER_MASTER, or write 'master = URL' in /),
    ]);

    // A standby that names its leader with a 307: the call goes on there, method, body and token kept.
    const seen: string[] = [];
    const standby = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(307, { location: `${cp.url}${req.url}` }).end();
    });
    await new Promise<void>((resolve) => standby.listen(0, '127.0.0.1', resolve));
    try {
      const target = (await agentsNow())[1];
      const url = `http://127.0.0.1:${(standby.address() as AddressInfo).port}`;
      const r = await arbiter(['agent', 'drain', target.id, '--grace', '7', '--master', url], admin());
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(seen).toEqual([`POST /api/v1/agents/${target.id}/drain`]);
      const after = json<Agent & { drainConfig: { maxGracePeriodSeconds: number } }>(ok(await op('agents', 'show', target.id, '--json')));
      expect([after.drainState, after.drainConfig.maxGracePeriodSeconds]).toEqual(['DRAINED', 7]);
      ok(await op('agent', 'reactivate', target.id));
    } finally {
      standby.close();
    }
  });

  it('--watch waits out a control plane without a leader (503), saying so, then shows the view; --json gives one line per view', async () => {
    let answered = 0;
    // No leader for the first two asks, then a standby naming the leader.
    const flaky = http.createServer((req, res) => {
      answered++;
      if (answered <= 2)
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ statusCode: 503, code: 'NO_LEADER', message: 'no leader is known yet' }));
      else res.writeHead(307, { location: `${cp.url}${req.url}` }).end();
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
      const watch = new Running(['agents', 'list', '--watch', '0.2', '--json', '--master', url], admin());
      await until(() => watch.stdout.split('\n').filter(Boolean).length >= 2, 'two views');
      expect(await watch.stop()).toBe(0);
      expect(watch.stderr.trim().split('\n')).toEqual([
        'arbiter: unavailable (NO_LEADER): no leader is known yet (asking again in 0.2 s)',
        'arbiter: unavailable (NO_LEADER): no leader is known yet (asking again in 0.2 s)',
      ]);
      for (const line of watch.stdout.trim().split('\n'))
        expect((JSON.parse(line) as Page<Agent>).items.map((a) => a.hostname)).toContain('op-node-1');
    } finally {
      flaky.close();
    }
  });

  it('usage errors exit 2; `completion bash` completes commands, subcommands and options', async () => {
    const unknown = await op('agents', 'lst');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'lst'");
    expect((await op('tasks', 'list', '--limit', '0')).code).toBe(2);
    expect((await op('maintenance', 'schedule', '--start', 'now')).code).toBe(2);

    const script = ok(await arbiter(['completion', 'bash'])).stdout;
    const complete = (...words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _arbiter; echo "\${COMPREPLY[*]}"`,
        ],
        {
          encoding: 'utf8',
        },
      ).trim();
    expect(complete('arbiter', 'ag')).toBe('agent agents');
    expect(complete('arbiter', 'agent', 'd').split(' ')).toEqual(['drain', 'deactivate']);
    expect(complete('arbiter', 'agent', 'drain', 'X', '--gr')).toBe('--grace');
    expect(complete('arbiter', 'maintenance', 's').split(' ').sort()).toEqual(['schedule', 'start', 'status', 'stop']);
    expect(ok(await arbiter(['completion', 'zsh'])).stdout).toContain('bashcompinit');
    expect((await arbiter(['completion', 'fish'])).code).toBe(2);
  });

  it('marks an idle agent GONE for good: changing it afterwards is refused AGENT_GONE', async () => {
    const idle = (await agentsNow()).find((a) => a.hostname === 'op-node-2');
    if (!idle) throw new Error('no op-node-2');
    await until(
      async () => json<Page<Task>>(ok(await op('tasks', 'list', '--agent', idle.id, '--state', 'running', '--json'))).total === 0,
      'no task on it',
    );
    expect(ok(await op('agent', 'gone', idle.id)).stdout.trim()).toBe(`agent ${idle.id} (op-node-2) is GONE`);
    expect(json<Agent>(ok(await op('agents', 'show', idle.id, '--json'))).status).toBe('GONE');
    const again = await op('agent', 'reactivate', idle.id);
    expect([again.code, again.stderr]).toEqual([
      1,
      `arbiter: conflict (AGENT_GONE): agent ${idle.id} (op-node-2) is marked gone and cannot be changed\n`,
    ]);
    expect(ok(await op('agents', 'list', '--status', 'gone')).stdout).toMatch(new RegExp(`^${idle.id} +op-node-2 +GONE `, 'm'));
  });
});
