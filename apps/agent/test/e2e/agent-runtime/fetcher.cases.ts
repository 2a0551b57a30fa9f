/**
 * The fetcher with real processes: a local HTTP server serves a tar.gz, a zip, an executable and
 * a hostile archive; the agent (FakeControlPlane) fetches them into tasks' sandboxes, as the
 * tasks' users, before the tasks start.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutorSpec, FetchUri, LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { Agent } from '../../../src/agent';
import { FakeControlPlane, launchOf } from '../../support/fake-control-plane';
import { stopAgents, testAgent } from '../../support/test-agents';

const until = (check: () => boolean, what = 'the fetch condition') => untilWithin(check, 20_000, what);

describe('fetcher (real processes, a local HTTP server)', () => {
  let dir: string;
  let files: string;
  let server: http.Server;
  let base: string;
  let cp: FakeControlPlane;
  const agents: Agent[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-fetcher-'));
    fs.chmodSync(dir, 0o711);
    files = path.join(dir, 'files');
    const src = path.join(dir, 'src');
    fs.mkdirSync(path.join(src, 'app'), { recursive: true });
    fs.mkdirSync(path.join(src, 'zipped'));
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(src, 'app', 'hello.txt'), 'hello from the tarball\n');
    fs.writeFileSync(path.join(src, 'zipped', 'z.txt'), 'hello from the zip\n');
    execFileSync('tar', ['-C', src, '-czf', path.join(files, 'app.tar.gz'), 'app']);
    execFileSync('zip', ['-qr', path.join(files, 'app.zip'), 'zipped'], { cwd: src });
    execFileSync('tar', ['-C', src, '-czf', path.join(files, 'bad.tgz'), '--transform', 's,^app,../escaped,', 'app'], { stdio: 'ignore' });
    fs.writeFileSync(path.join(files, 'tool'), '#!/bin/sh\necho tool ran\n');
    fs.writeFileSync(path.join(files, 'agent.jar'), 'JAR');
    server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === '/slow.tgz') {
        // Starts, then never finishes: a fetch that only a timeout or a kill ends.
        res.writeHead(200, { 'content-length': 1_000_000 }).write('x');
        return;
      }
      const file = path.join(files, path.basename(req.url ?? ''));
      if (!fs.existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': fs.statSync(file).size });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let work: string;
  beforeEach(async () => {
    cp = await FakeControlPlane.start();
    work = fs.mkdtempSync(path.join(dir, 'work-'));
    fs.chmodSync(work, 0o711);
    requests.length = 0;
  });
  afterEach(async () => {
    await stopAgents(agents);
    await cp.close();
  });

  const started = async (fetch: { timeoutMs?: number } = {}) => {
    const agent = testAgent(cp, work, { tasks: { fetch } });
    agents.push(agent);
    agent.start();
    await until(() => cp.registered, 'the agent registered');
    return agent;
  };
  const withUris = (taskId: string, shell: string, uris: FetchUri[]): LaunchTask => {
    const launch = launchOf(taskId, shell);
    return { ...launch, task: { ...launch.task, uris } };
  };
  const ended = (taskId: string) => until(() => ['FINISHED', 'FAILED', 'KILLED'].includes(cp.last(taskId)?.state ?? ''), `${taskId} ended`);

  it('unpacks a tar.gz and a zip and places an executable, owned by the task user, before the task starts', async () => {
    await started();
    const check = [
      'test -x ./tool && ./tool > tool.out',
      'grep -q tarball app/hello.txt && grep -q zip zipped/z.txt',
      '[ "$(stat -c %u app/hello.txt)" = "$(id -u)" ] && [ "$(stat -c %u tool)" = "$(id -u)" ]',
      '[ -f app.tar.gz ] && [ ! -e ../escaped ]',
    ].join(' && ');
    cp.launch(
      withUris('t1', check, [
        { value: `${base}/app.tar.gz`, extract: true },
        { value: `${base}/app.zip`, extract: true },
        { value: `${base}/tool`, executable: true },
      ]),
    );
    await ended('t1');
    expect(cp.states('t1')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    expect(cp.statuses.find((u) => u.taskId === 't1' && u.state === 'STARTING')?.message).toMatch(
      /^fetched 3 URIs \(\d+ bytes, 0 from the cache\) in \d+ ms$/,
    );
  });

  it('downloads a cached URI once for two tasks', async () => {
    await started();
    const uri = { value: `${base}/app.tar.gz`, extract: true, cache: true };
    cp.launch(withUris('c1', 'grep -q tarball app/hello.txt', [uri]));
    cp.launch(withUris('c2', 'grep -q tarball app/hello.txt', [uri]));
    await ended('c1');
    await ended('c2');
    expect([cp.last('c1')?.state, cp.last('c2')?.state]).toEqual(['FINISHED', 'FINISHED']);
    expect(requests.filter((r) => r === '/app.tar.gz')).toHaveLength(1);
    // A third, later: a hit.
    const owned = '[ "$(stat -c %u app/hello.txt)" = "$(id -u)" ] && [ "$(stat -c %u app)" = "$(id -u)" ]';
    cp.launch(withUris('c3', `grep -q tarball app/hello.txt && ${owned}`, [uri]));
    await ended('c3');
    expect(cp.statuses.find((u) => u.taskId === 'c3' && u.state === 'STARTING')?.message).toMatch(/1 from the cache/);
    // Unpacked from the tree the first hit kept, owned by its user as tar would have made it.
    expect(cp.last('c3')?.state).toBe('FINISHED');
    expect(requests.filter((r) => r === '/app.tar.gz')).toHaveLength(1);
  });

  it('a failed fetch ends the task FAILED before it runs, naming the URI and the error', async () => {
    await started();
    cp.launch(withUris('missing', 'touch ran', [{ value: `${base}/nothing-here` }]));
    cp.launch(withUris('scheme', 'touch ran', [{ value: 'hdfs://nn/agent.jar' }]));
    await ended('missing');
    await ended('scheme');
    expect(cp.states('missing')).toEqual(['FAILED']);
    expect(cp.last('missing')).toMatchObject({
      reason: 'REASON_CONTAINER_LAUNCH_FAILED',
      message: `could not fetch ${base}/nothing-here: HTTP 404 Not Found`,
    });
    expect(cp.last('scheme')?.message).toBe(
      'could not fetch hdfs://nn/agent.jar: the scheme hdfs is not supported (http, https and file are)',
    );
  });

  it('refuses an archive entry with ../ and an outputFile leaving the sandbox', async () => {
    const agent = await started();
    cp.launch(withUris('bad', 'touch ran', [{ value: `${base}/bad.tgz`, extract: true }]));
    cp.launch(withUris('out', 'touch ran', [{ value: `${base}/tool`, outputFile: '../../tool' }]));
    await ended('bad');
    await ended('out');
    expect(cp.last('bad')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    expect(cp.last('bad')?.message).toBe(`could not fetch ${base}/bad.tgz: the archive entry "../escaped/" leaves the sandbox`);
    expect(cp.last('out')?.message).toBe(`could not fetch ${base}/tool: the outputFile "../../tool" leaves the sandbox`);
    const sandbox = agent.tasks.sandboxOf('fw', 'bad');
    expect(fs.existsSync(path.join(sandbox, '..', 'escaped'))).toBe(false);
    expect(fs.existsSync(path.join(sandbox, 'ran'))).toBe(false);
  });

  it('a fetch past its time limit fails the task; a task killed while fetching never starts', async () => {
    const agent = await started({ timeoutMs: 500 });
    cp.launch(withUris('slow', 'touch ran', [{ value: `${base}/slow.tgz` }]));
    cp.launch(withUris('killed', 'touch ran', [{ value: `${base}/slow.tgz` }]));
    await until(() => requests.filter((r) => r === '/slow.tgz').length === 2, 'both fetches under way');
    expect(cp.states('killed')).toEqual([]);
    agent.kill({ frameworkId: 'fw', taskId: 'killed', gracePeriodSeconds: 0 }, () => undefined);
    await ended('slow');
    await ended('killed');
    expect(cp.last('slow')).toMatchObject({ state: 'FAILED', message: `could not fetch ${base}/slow.tgz: timed out after 0.5 s` });
    expect(cp.states('killed')).toEqual(['KILLED']);
    expect(cp.last('killed')?.reason).toBe('REASON_TASK_KILLED_DURING_LAUNCH');
    // Its fetch ended after the kill: the task was not started then either.
    await until(
      () => requests.length === 2 && !fs.readdirSync(agent.tasks.sandboxOf('fw', 'killed')).some((n) => n.startsWith('.')),
      'its fetch gave up',
    );
    expect(fs.existsSync(path.join(agent.tasks.sandboxOf('fw', 'killed'), 'ran'))).toBe(false);
    expect(cp.states('killed')).toEqual(['KILLED']);
  });

  it("reads a file URI as the task's user: a file only root may read is not fetched for another user", async () => {
    await started();
    const secret = path.join(dir, 'secret.txt');
    fs.writeFileSync(secret, 'root only\n', { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'open.txt'), 'anyone\n', { mode: 0o644 });
    cp.launch(withUris('secret', 'cat secret.txt', [{ value: `file://${secret}` }]));
    cp.launch(withUris('open', 'grep -q anyone open.txt', [{ value: path.join(dir, 'open.txt') }]));
    await ended('secret');
    await ended('open');
    expect(cp.last('open')?.state).toBe('FINISHED');
    // The CI runs as root, whose tasks run as their framework's own user; an agent that is not
    // root runs tasks as itself, which may read its own file.
    if (process.getuid?.() === 0)
      expect(cp.last('secret')).toMatchObject({
        state: 'FAILED',
        message: `could not fetch file://${secret}: ${secret}: Permission denied`,
      });
    else expect(cp.last('secret')?.state).toBe('FINISHED');
  });

  it("launches the Jenkins Mesos plugin's task shape: a command run beside agent.jar fetched as a URI", async () => {
    await started();
    // Mesos's codec gives extract: true by default; a .jar is not unpacked.
    cp.launch(
      withUris('jenkins', 'test -f agent.jar && grep -q JAR agent.jar', [{ value: `${base}/agent.jar`, extract: true, cache: true }]),
    );
    await ended('jenkins');
    expect(cp.states('jenkins')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
  });

  it("an executor's URIs are fetched before it starts; a failure ends its tasks FAILED with the URI", async () => {
    const agent = await started();
    const fetching: ExecutorSpec = {
      executorId: 'fetching',
      type: 'CUSTOM',
      command: { shell: './tool > fetched.out; exec sleep 100' },
      resources: [{ name: 'cpus', value: 0.1 }],
      uris: [{ value: `${base}/tool`, executable: true }],
    };
    cp.launch({
      frameworkId: 'fw',
      task: { taskId: 'on-fetching', name: 't', executor: fetching, resources: [{ name: 'cpus', value: 0.1 }] },
    });
    const out = path.join(agent.tasks.containerizer.sandboxes.executorPathOf('fw', 'fetching'), 'fetched.out');
    await until(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8') === 'tool ran\n', 'the executor ran the fetched tool');

    const executor: ExecutorSpec = {
      executorId: 'ex',
      type: 'CUSTOM',
      command: { shell: 'sleep 100' },
      resources: [{ name: 'cpus', value: 0.1 }],
      uris: [{ value: `${base}/missing-executor.tgz`, extract: true }],
    };
    cp.launch({ frameworkId: 'fw', task: { taskId: 'on-ex', name: 'on-ex', executor, resources: [{ name: 'cpus', value: 0.1 }] } });
    await ended('on-ex');
    expect(cp.last('on-ex')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
    expect(cp.last('on-ex')?.message).toContain(`could not fetch ${base}/missing-executor.tgz: HTTP 404 Not Found`);
  });
});
