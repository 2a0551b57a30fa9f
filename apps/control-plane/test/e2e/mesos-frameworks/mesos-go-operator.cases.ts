/**
 * A Mesos operator tool built on a public Mesos client library, run unchanged against Arbiter,
 * all real processes: mesos-go v0.0.6's v1 operator API client (httpcli/httpmaster, Debian's
 * golang-github-mesos-mesos-go-dev) in a Go program (fixtures/mesos-go-operator), built here with
 * Debian's Go; `arbiter control-plane`, `arbiter agent`, and a Mesos framework on a third-party
 * client (examples/mesos/shell-framework.js) launching tasks. The tool authenticates with HTTP
 * Basic as Mesos tools do, makes the read calls in both of the library's codecs (protobuf, its
 * default, and JSON), and follows SUBSCRIBE while an agent joins, the framework launches a task
 * and is torn down.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/app';
import { buildMesosGo, mesosGoProblem } from '../../support/mesos-go';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../support/process';
import { until } from '../../support/until';

const FIXTURE = path.resolve(__dirname, '../fixtures/mesos-go-operator');
const FRAMEWORK = path.resolve(__dirname, '../../../../../examples/mesos/shell-framework.js');

interface Agent {
  id: string;
  hostname: string;
  active: boolean;
  registered: boolean;
  resources: number;
  version: string;
  pid: string;
}
interface Framework {
  id: string;
  name: string;
  user: string;
  roles: string[];
  active?: boolean;
  connected?: boolean;
  registered?: boolean;
}
const OTHER_CALLS = [
  'GET_FLAGS',
  'GET_EXECUTORS',
  'GET_METRICS',
  'GET_LOGGING_LEVEL',
  'GET_MASTER',
  'GET_MAINTENANCE_SCHEDULE',
  'GET_QUOTA',
  'GET_WEIGHTS',
];

interface Line {
  call?: string;
  event?: string;
  error?: string;
  healthy?: boolean;
  version?: string;
  agents?: Agent[];
  frameworks?: Framework[];
  tasks?: string[];
  completed?: string[];
  roles?: string[];
  draining?: number;
  down?: number;
  flags?: number;
  metrics?: boolean;
  weights?: Record<string, number>;
  agent?: Agent;
  framework?: Framework | string;
  task?: string;
  state?: string;
}

/** A child process whose stdout is JSON lines, kept in `lines`; everything it printed in `output`. */
class Lines {
  readonly lines: Line[] = [];
  output = '';
  constructor(readonly child: ChildProcess) {
    let partial = '';
    child.stdout?.on('data', (c: Buffer) => {
      partial += c.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) {
        this.output += l + '\n';
        if (l.startsWith('{')) this.lines.push(JSON.parse(l) as Line);
      }
    });
    child.stderr?.on('data', (c: Buffer) => (this.output += c.toString()));
  }
  call(name: string): Line | undefined {
    return this.lines.find((l) => l.call === name);
  }
  events(type?: string): Line[] {
    return this.lines.filter((l) => l.event !== undefined && (type === undefined || l.event === type));
  }
  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGKILL');
    await exited;
  }
}

describe("a Mesos operator tool on mesos-go's operator API client, unchanged, on Arbiter", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-mesos-go-'));
  // Tasks run as nobody under a root agent: their sandboxes must be reachable.
  fs.chmodSync(dir, 0o711);
  const agent = new AgentProcess('mesos-go-agent-1', path.join(dir, 'agent'), 'cpus:4;mem:2048');
  const children: Lines[] = [];
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;

  afterAll(async () => {
    for (const c of children) await c.stop();
    await agent.stop();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the state in protobuf and JSON, and follows the agent, the framework and its task on SUBSCRIBE', async () => {
    // Without Go or mesos-go this fails, saying which Debian packages to install.
    const problem = mesosGoProblem();
    if (problem) throw new Error(problem);
    const built = buildMesosGo(FIXTURE, path.join(dir, 'go'));
    db = await freshDatabase();
    const port = await freePort();
    cp = await spawnControlPlane({
      DATABASE_URL: db.url,
      PORT: String(port),
      ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
      ARBITER_ALLOCATION_INTERVAL: '0.2',
      // The framework's client sends no credentials (as with Mesos's --authenticate_http_frameworks=false).
      ARBITER_MESOS_ALLOW_ANONYMOUS: 'true',
    });
    const master = cp.url;
    const binary = await built;
    const tool = (endpoint: string, args: string[]) => {
      const t = new Lines(
        spawn(binary, ['-master', `${master}${endpoint}`, '-principal', 'admin', '-secret', ADMIN_TOKEN, ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      children.push(t);
      return t;
    };

    // Protobuf (the library's default) on /master/api/v1, subscribed before the agent joins.
    const pb = tool('/master/api/v1', ['-codec', 'protobuf']);
    await until(() => pb.events('SUBSCRIBED').length === 1 || pb.exited, `the protobuf tool to subscribe:\n${pb.output}`);
    expect(pb.lines.filter((l) => l.error)).toEqual([]);
    expect(pb.call('GET_HEALTH')).toEqual({ call: 'GET_HEALTH', healthy: true });
    expect(pb.call('GET_VERSION')?.version).toMatch(/^1\.\d+\.\d+$/);
    expect(pb.call('GET_STATE')).toEqual({ call: 'GET_STATE', agents: [], frameworks: [], tasks: [] });
    expect(pb.call('GET_MAINTENANCE_STATUS')).toEqual({ call: 'GET_MAINTENANCE_STATUS', draining: 0, down: 0 });
    expect(pb.events()[0]).toEqual({ event: 'SUBSCRIBED', agents: [], frameworks: [], tasks: [] });

    agent.start(master, ADMIN_TOKEN);
    await until(() => pb.events('AGENT_ADDED').length === 1, `AGENT_ADDED:\n${pb.output}\n${agent.log}`);
    // The whole agent, as GET_AGENTS shows it.
    const added = pb.events('AGENT_ADDED')[0].agent;
    expect(added).toMatchObject({ hostname: 'mesos-go-agent-1', active: true, registered: true, resources: 2 });
    expect(added?.version).not.toBe('');
    expect(added?.pid).toMatch(/^slave\(1\)@/);

    const framework = new Lines(
      spawn(
        process.execPath,
        [
          FRAMEWORK,
          '--master',
          master,
          '--task',
          'hello:1:echo hello',
          '--task',
          'service:1:sleep 600',
          ...(process.getuid?.() === 0 ? ['--user', 'nobody'] : []),
        ],
        { cwd: os.tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] },
      ),
    );
    children.push(framework);
    const user = process.getuid?.() === 0 ? 'nobody' : os.userInfo().username;
    const ofService = (l: Line) => l.task?.split('.')[1] === 'service-1';
    const ofHello = (l: Line) => l.task?.split('.')[1] === 'hello-1';
    await until(
      () => pb.events('TASK_UPDATED').some((l) => ofService(l) && l.state === 'TASK_RUNNING'),
      `the service task RUNNING on the stream:\n${pb.output}\n${framework.output}`,
    );
    await until(
      () => pb.events('TASK_UPDATED').some((l) => ofHello(l) && l.state === 'TASK_FINISHED'),
      `the hello task FINISHED on the stream:\n${pb.output}\n${framework.output}`,
    );
    const frameworkId = (framework.lines.find((l) => l.event === 'subscribed') as { frameworkId?: string } | undefined)?.frameworkId;
    expect(frameworkId).toBeDefined();
    // The whole framework, as GET_FRAMEWORKS shows it.
    expect(pb.events('FRAMEWORK_ADDED').map((l) => l.framework)).toEqual([
      { id: frameworkId, name: 'mesos-shell-framework', user, roles: ['default'], active: true, connected: true, registered: true },
    ]);
    // Each task: TASK_ADDED (STAGING), then TASK_UPDATED in the order its states came.
    const service = pb.events().filter(ofService);
    expect(service.map((l) => [l.event, l.state, l.framework])).toEqual([
      ['TASK_ADDED', 'TASK_STAGING', frameworkId],
      ['TASK_UPDATED', 'TASK_STARTING', frameworkId],
      ['TASK_UPDATED', 'TASK_RUNNING', frameworkId],
    ]);
    expect(
      pb
        .events()
        .filter(ofHello)
        .map((l) => [l.event, l.state]),
    ).toEqual([
      ['TASK_ADDED', 'TASK_STAGING'],
      ['TASK_UPDATED', 'TASK_STARTING'],
      ['TASK_UPDATED', 'TASK_RUNNING'],
      ['TASK_UPDATED', 'TASK_FINISHED'],
    ]);
    const serviceId = service[0].task;
    const helloId = pb.events().find(ofHello)?.task;

    // JSON on /api/v1: every read call, then SUBSCRIBED (and it stops there: the library's JSON
    // Event type predates HEARTBEAT, which it would refuse after 15 s, as from Mesos 1.5 on).
    const json = tool('/api/v1', ['-codec', 'json', '-events', '1']);
    await until(() => json.exited, `the JSON tool to subscribe and exit:\n${json.output}`);
    expect(json.child.exitCode).toBe(0);
    expect(json.lines.filter((l) => l.error)).toEqual([]);
    const agents = [{ ...added, registered: true }];
    const frameworks = [
      { id: frameworkId, name: 'mesos-shell-framework', user, roles: ['default'], active: true, connected: true, registered: true },
    ];
    expect(json.call('GET_STATE')).toEqual({ call: 'GET_STATE', agents, frameworks, tasks: [`${serviceId}=TASK_RUNNING`] });
    expect(json.call('GET_AGENTS')).toEqual({ call: 'GET_AGENTS', agents });
    expect(json.call('GET_FRAMEWORKS')).toEqual({ call: 'GET_FRAMEWORKS', frameworks });
    expect(json.call('GET_TASKS')).toEqual({
      call: 'GET_TASKS',
      tasks: [`${serviceId}=TASK_RUNNING`],
      completed: [`${helloId}=TASK_FINISHED`],
    });
    expect(json.call('GET_ROLES')).toEqual({ call: 'GET_ROLES', roles: ['default'] });
    expect(json.events()).toEqual([{ event: 'SUBSCRIBED', agents, frameworks, tasks: [`${serviceId}=TASK_RUNNING`] }]);
    // The library's other read calls, and a write (UPDATE_WEIGHTS, answered without a body), in both codecs.
    for (const t of [pb, json]) {
      expect(OTHER_CALLS.filter((c) => !t.call(c))).toEqual([]);
      expect(t.call('GET_FLAGS')?.flags).toBeGreaterThan(0);
      expect(t.call('GET_METRICS')?.metrics).toBe(true);
      expect(t.call('GET_WEIGHTS')?.weights).toEqual({ default: 2 });
    }

    // Teardown: the service is killed, and the framework removed, with its whole FrameworkInfo.
    framework.child.stdin?.write('teardown\n');
    await until(
      () => pb.events('FRAMEWORK_REMOVED').length === 1 && pb.events('TASK_UPDATED').some((l) => ofService(l) && l.state === 'TASK_KILLED'),
      `FRAMEWORK_REMOVED and the service KILLED:\n${pb.output}`,
    );
    expect(pb.events('FRAMEWORK_REMOVED')[0].framework).toEqual({
      id: frameworkId,
      name: 'mesos-shell-framework',
      user,
      roles: ['default'],
    });
    // The events in the order they happened: the agent, the framework, its tasks, its removal.
    const order = pb.events().map((l) => l.event);
    expect(order.indexOf('AGENT_ADDED')).toBeLessThan(order.indexOf('FRAMEWORK_ADDED'));
    expect(order.indexOf('FRAMEWORK_ADDED')).toBeLessThan(order.indexOf('TASK_ADDED'));
    expect(order.lastIndexOf('TASK_ADDED')).toBeLessThan(order.indexOf('FRAMEWORK_REMOVED'));
    expect(pb.exited).toBe(false);
  }, 300_000);
});
