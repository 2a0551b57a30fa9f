/**
 * A Mesos framework built on a third-party Mesos client (`mesos-framework` from npm, speaking
 * Mesos's v1 scheduler HTTP API in JSON), run unchanged against Arbiter, all real processes:
 * `arbiter control-plane`, `arbiter agent` running the tasks, and the framework
 * (examples/mesos/shell-framework.js). It subscribes, launches shell tasks and sees them RUNNING
 * and FINISHED, declines offers with a filter, kills a task, and after the control plane
 * restarts subscribes again with its framework id and reconciles its tasks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../support/process';
import { defined, until } from '../../support/until';

const EXAMPLE = path.resolve(__dirname, '../../../../../examples/mesos/shell-framework.js');

interface Line {
  event: string;
  frameworkId?: string;
  taskId?: string;
  state?: string;
  reason?: string | null;
  refuseSeconds?: number;
  message?: string;
}

/** The example framework as a child process; its JSON lines in `lines`. */
class MesosFramework {
  readonly child: ChildProcess;
  readonly lines: Line[] = [];
  output = '';
  constructor(master: string, args: string[]) {
    this.child = spawn(process.execPath, [EXAMPLE, '--master', master, ...args], { cwd: os.tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] });
    let partial = '';
    this.child.stdout?.on('data', (c: Buffer) => {
      partial += c.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) {
        this.output += l + '\n';
        if (l.startsWith('{')) this.lines.push(JSON.parse(l) as Line);
      }
    });
    this.child.stderr?.on('data', (c: Buffer) => (this.output += c.toString()));
  }
  send(line: string): void {
    this.child.stdin?.write(line + '\n');
  }
  events(event: string): Line[] {
    return this.lines.filter((l) => l.event === event);
  }
  /** States of the task launched as NAME-N (its Mesos task id is `<framework>.<NAME-N>.<uuid>`). */
  states(name: string): string[] {
    return this.events('update')
      .filter((l) => l.taskId?.split('.')[1] === name)
      .map((l) => defined(l.state));
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGKILL');
    await exited;
  }
}

describe('a Mesos framework on a third-party client, unchanged, on Arbiter', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-mesos-'));
  // Tasks run as nobody under a root agent: their sandboxes must be reachable.
  fs.chmodSync(dir, 0o711);
  const agent = new AgentProcess('mesos-agent-1', path.join(dir, 'agent'), 'cpus:4;mem:2048');
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let fw: MesosFramework | undefined;

  afterAll(async () => {
    await fw?.stop();
    await agent.stop();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs shell tasks to FINISHED, declines with a filter, kills a task, and re-subscribes and reconciles after a restart', async () => {
    db = await freshDatabase();
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      PORT: String(port),
      ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
      ARBITER_ALLOCATION_INTERVAL: '0.2',
      // mesos-framework sends no credentials (as with Mesos's --authenticate_http_frameworks=false).
      ARBITER_MESOS_ALLOW_ANONYMOUS: 'true',
    };
    cp = await spawnControlPlane(env);
    const master = cp.url;
    agent.start(master, ADMIN_TOKEN);
    const api = async (route: string) =>
      (await fetch(`${master}${route}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json() as Promise<
        Record<string, unknown>
      >;

    fw = new MesosFramework(master, [
      '--task',
      'hello:2:echo hello from $HOST',
      '--task',
      'service:1:sleep 600',
      '--refuse-seconds',
      '3600',
      ...(process.getuid?.() === 0 ? ['--user', 'nobody'] : []),
    ]);
    const f = fw;
    await until(() => f.events('subscribed').length === 1, `the framework to subscribe:\n${f.output}`);
    const frameworkId = defined(f.events('subscribed')[0].frameworkId);
    await until(
      () => f.states('hello-1').includes('TASK_FINISHED') && f.states('hello-2').includes('TASK_FINISHED'),
      `both hello tasks to finish:\n${f.output}\n${agent.log}`,
    );
    expect(f.states('hello-1')).toEqual(['TASK_STARTING', 'TASK_RUNNING', 'TASK_FINISHED']);
    await until(() => f.states('service-1').includes('TASK_RUNNING'), 'the service task to run');
    // The control plane sees a Mesos framework, in the role Mesos's '*' maps to, with its tasks.
    expect(await api(`/api/v1/frameworks/${frameworkId}`)).toMatchObject({
      name: 'mesos-shell-framework',
      protocol: 'mesos',
      roles: ['default'],
      principal: null,
      connected: true,
      activeTasks: 1,
    });

    // Everything launched: what is offered now is declined for an hour, and no more is offered.
    await until(() => f.events('declined').length > 0, 'a decline');
    expect(f.events('declined')[0].refuseSeconds).toBe(3600);
    await until(
      async () => JSON.stringify(await api(`/api/v1/frameworks/${frameworkId}/explain`)).includes('FRAMEWORK_FILTERED'),
      "the filter in the framework's explanation",
    );
    const declined = f.events('declined').length;

    // A restart of the control plane: the framework subscribes again as itself and reconciles.
    expect(await cp.stop('SIGINT')).toBe(0);
    cp = await spawnControlPlane(env);
    await until(() => f.events('subscribed').length === 2, 60_000, `the framework to subscribe again:\n${f.output}`);
    expect(f.events('subscribed')[1].frameworkId).toBe(frameworkId);
    await until(
      () => f.events('update').some((l) => l.taskId?.includes('.service-1.') && l.reason === 'REASON_RECONCILIATION'),
      `reconciliation of the service task:\n${f.output}`,
    );
    expect(f.events('update').find((l) => l.reason === 'REASON_RECONCILIATION')).toMatchObject({ state: 'TASK_RUNNING' });
    // The filter was the old master's: the new one offers again, and the framework declines again.
    await until(() => f.events('declined').length > declined, 'a decline after the restart');

    // KILL of the service: KILLED, reported by the agent.
    f.send('kill service-1');
    await until(() => f.states('service-1').includes('TASK_KILLED'), `the kill:\n${f.output}`);
    expect(await api(`/api/v1/frameworks/${frameworkId}`)).toMatchObject({ activeTasks: 0, connected: true });
    // No call was refused: the client reports an HTTP refusal as "status code was '4xx'" or
    // "code: 4xx" (connection errors while the control plane restarted are expected; their
    // port numbers must not read as status codes).
    expect(f.output).not.toMatch(/"event":"error","message":"[^"\n]*(status code was '|code: )[45]\d\d/);

    // TEARDOWN: the framework is completed.
    f.send('teardown');
    await until(() => f.child.exitCode !== null, 'the framework to exit');
    await until(async () => (await api(`/api/v1/frameworks/${frameworkId}`)).state === 'COMPLETED', 'the framework to complete');
  }, 240_000);
});
