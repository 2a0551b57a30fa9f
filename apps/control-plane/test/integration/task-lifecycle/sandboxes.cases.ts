/**
 * Sandbox files through the control plane (issue #31 item 3): a task's sandbox browsed, read
 * with Mesos's offset and length semantics and downloaded, relayed to the agent that ran it (a
 * protocol agent answering as the real one does); the view_tasks and access_sandboxes ACLs
 * hiding another framework's sandbox (the agent is never asked); and each refusal's code.
 */
import { Resources } from '@arbiter/allocator';
import { ProtocolAgent } from '../../support/fake-agent';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

let t: TestControlPlane | undefined;
let node: ProtocolAgent;
let viewer: string;
let noSandboxes: string;
const ids = { alice: '', bob: '' };
const frameworks = { alice: '', bob: '' };
const closers: Array<() => void> = [];

const cp = () => defined(t);
const get = (url: string, token?: string) => cp().request('GET', url, undefined, token ? { token } : {});
const codeOf = (body: unknown) => (body as { code?: string }).code;

beforeAll(async () => {
  t = await startTestControlPlane({ config: { allocationInterval: 0.1 } });
  viewer = await t.principal('viewer-a', 'VIEWER');
  noSandboxes = await t.principal('viewer-logs-off', 'VIEWER');
  const acls = await t.request('PUT', '/api/v1/acls', {
    permissive: true,
    access_sandboxes: [
      { principals: { values: ['viewer-a'] }, users: { values: ['alice'] } },
      { principals: { values: ['viewer-a', 'viewer-logs-off'] }, users: { type: 'NONE' } },
    ],
  });
  expect(acls.status).toBe(200);
  node = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'files-1',
    resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON(),
  });
  closers.push(() => node.close());
  await node.register();
  node.sandboxes.set(
    'ta',
    new Map([
      ['stdout', 'hello from alice\n'],
      ['stderr', 'a warning\n'],
      ['out/result.bin', '\u00e9t\u00e9'],
    ]),
  );
  node.sandboxes.set('tb', new Map([['stdout', "bob's secret\n"]]));
  for (const [user, taskId] of [
    ['alice', 'ta'],
    ['bob', 'tb'],
  ] as const) {
    const r = new Recorder(t, { name: `fw-${user}`, user, roles: [`r-${user}`] });
    closers.push(() => r.s.close());
    await r.s.start();
    await r.s.launch(await r.nextOffer(), [
      { taskId, name: taskId, command: { shell: 'sleep 60' }, resources: [{ name: 'cpus', value: 1 }] },
    ]);
    await until(() => r.states(taskId).includes('RUNNING'));
    const page = (await get(`/api/v1/tasks?frameworkId=${encodeURIComponent(defined(r.s.frameworkId))}`)).body as {
      items: Array<{ id: string }>;
    };
    ids[user] = defined(page.items[0]).id;
    frameworks[user] = defined(r.s.frameworkId);
  }
}, STARTUP_TIMEOUT_MS);

afterAll(async () => {
  for (const c of closers.splice(0)) c();
  await t?.close();
}, STARTUP_TIMEOUT_MS);

describe('sandbox files', () => {
  it("lists a task's sandbox with where its logs are, and reads a file by offset and length, offset -1 answering the size", async () => {
    const browse = await get(`/api/v1/tasks/${ids.alice}/files`);
    expect(browse.status).toBe(200);
    const listing = browse.body as { entries: Array<{ path: string; type: string; size: number }>; truncated: boolean; logs: unknown };
    expect(listing.entries.map((e) => [e.path, e.type, e.size])).toContainEqual(['stdout', 'file', 17]);
    expect(listing).toMatchObject({ truncated: false, logs: { stdout: 'stdout', stderr: 'stderr' } });
    expect(node.filesRequests.at(-1)).toMatchObject({ taskId: 'ta', path: '' });
    expect((await get(`/api/v1/tasks/${ids.alice}/files/read?path=stdout&offset=6&length=4`)).body).toEqual({
      data: 'from',
      offset: 6,
      length: 4,
      size: 17,
    });
    expect((await get(`/api/v1/tasks/${ids.alice}/files/read?path=stdout&offset=-1`)).body).toEqual({
      data: '',
      offset: 17,
      length: 0,
      size: 17,
    });
    const exact = (await get(`/api/v1/tasks/${ids.alice}/files/read?path=out/result.bin&encoding=base64`)).body as { data: string };
    expect(Buffer.from(exact.data, 'base64').toString()).toBe('\u00e9t\u00e9');
  });

  it('reads at most 1 MiB at once, and downloads a larger file whole, chunk by chunk', async () => {
    const big = Array.from({ length: 30_000 }, (_, i) => `line ${String(i).padStart(44, '0')}\n`).join('');
    defined(node.sandboxes.get('ta')).set('big.log', big);
    const first = (await get(`/api/v1/tasks/${ids.alice}/files/read?path=big.log`)).body as { length: number; size: number };
    expect(first).toMatchObject({ length: 1024 * 1024, size: big.length });
    const res = await fetch(`${cp().cp.url}/api/v1/tasks/${ids.alice}/files/download?path=big.log`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(big);
  });

  it('downloads a whole file as an attachment', async () => {
    const res = await fetch(`${cp().cp.url}/api/v1/tasks/${ids.alice}/files/download?path=stderr`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="stderr"');
    expect(await res.text()).toBe('a warning\n');
  });

  it("hides another framework's sandbox by the access_sandboxes ACL, without asking the agent", async () => {
    expect((await get(`/api/v1/tasks/${ids.alice}/files/read?path=stdout`, viewer)).body).toMatchObject({ data: 'hello from alice\n' });
    const asked = node.filesRequests.length;
    for (const url of [
      `/api/v1/tasks/${ids.bob}/files`,
      `/api/v1/tasks/${ids.bob}/files/read?path=stdout`,
      `/api/v1/tasks/${ids.bob}/files/download?path=stdout`,
    ]) {
      const res = await get(url, viewer);
      expect([url, res.status, codeOf(res.body)]).toEqual([url, 403, 'FORBIDDEN']);
      expect(JSON.stringify(res.body)).not.toContain('secret');
    }
    // view_tasks lets this viewer see the task, access_sandboxes does not let it read the sandbox.
    expect((await get(`/api/v1/tasks/${ids.alice}`, noSandboxes)).status).toBe(200);
    const refused = await get(`/api/v1/tasks/${ids.alice}/files/read?path=stdout`, noSandboxes);
    expect([refused.status, codeOf(refused.body)]).toEqual([403, 'FORBIDDEN']);
    expect((refused.body as { message: string }).message).toContain('access_sandboxes');
    expect(node.filesRequests.length).toBe(asked);
  });

  it('answers bad requests with stable codes', async () => {
    const cases: Array<[string, number, string]> = [
      ['/api/v1/tasks/00000000-0000-0000-0000-000000000000/files', 404, 'TASK_NOT_FOUND'],
      ['/api/v1/tasks/not-a-task/files/read?path=stdout', 404, 'TASK_NOT_FOUND'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=../../etc/passwd`, 400, 'SANDBOX_PATH_INVALID'],
      [`/api/v1/tasks/${ids.alice}/files?path=out/../..`, 400, 'SANDBOX_PATH_INVALID'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=missing`, 404, 'SANDBOX_FILE_NOT_FOUND'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=std%00out`, 400, 'VALIDATION_FAILED'],
      [`/api/v1/tasks/${ids.alice}/files?path=%00`, 400, 'VALIDATION_FAILED'],
      [`/api/v1/tasks/${ids.alice}/files/read`, 400, 'VALIDATION_FAILED'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=stdout&offset=-2`, 400, 'VALIDATION_FAILED'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=stdout&length=99999999`, 400, 'VALIDATION_FAILED'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=stdout&encoding=hex`, 400, 'VALIDATION_FAILED'],
      [`/api/v1/tasks/${ids.alice}/files/read?path=${'a'.repeat(5000)}`, 400, 'VALIDATION_FAILED'],
    ];
    for (const [url, status, code] of cases) {
      const res = await get(url);
      expect([url.slice(0, 120), res.status, codeOf(res.body)]).toEqual([url.slice(0, 120), status, code]);
    }
  });

  it("serves Mesos's /files/browse and /files/read on the agent's sandbox paths, under the same ACLs", async () => {
    const run = `/frameworks/${frameworks.alice}/executors/ta/runs/latest`;
    const browse = await get(`/files/browse?path=${encodeURIComponent(run)}`);
    expect(browse.status).toBe(200);
    const entries = browse.body as Array<{ path: string; size: number; uid: string; mode: string }>;
    expect(entries.find((e) => e.path === `${run}/stdout`)).toEqual(expect.objectContaining({ size: 17, uid: '0', mode: '-rw-r--r--' }));
    expect((await get(`/files/read?path=${encodeURIComponent(`${run}/stdout`)}`)).body).toEqual({ data: '', offset: 17 });
    expect((await get(`/files/read.json?path=${encodeURIComponent(`${run}/stdout`)}&offset=0&length=5`)).body).toEqual({
      data: 'hello',
      offset: 0,
    });
    const bobs = `/frameworks/${frameworks.bob}/executors/tb/runs/latest/stdout`;
    const cases: Array<[string, string | undefined, number, string]> = [
      [`/files/read?path=${encodeURIComponent(bobs)}`, viewer, 403, 'FORBIDDEN'],
      [`/files/read?path=${encodeURIComponent('/etc/passwd')}`, undefined, 400, 'SANDBOX_PATH_INVALID'],
      [`/files/read?path=${encodeURIComponent(`${run}/../../tb/runs/latest/stdout`)}`, undefined, 400, 'SANDBOX_PATH_INVALID'],
      [
        `/files/browse?path=${encodeURIComponent(`/frameworks/${frameworks.alice}/executors/nope/runs/latest`)}`,
        undefined,
        404,
        'TASK_NOT_FOUND',
      ],
      ['/files/read', undefined, 400, 'VALIDATION_FAILED'],
    ];
    for (const [url, token, status, code] of cases) {
      const res = await get(url, token);
      expect([url, res.status, codeOf(res.body)]).toEqual([url, status, code]);
    }
  });

  it('answers 503 SANDBOX_UNREACHABLE while the agent is not connected', async () => {
    node.close();
    await until(async () => (await get(`/api/v1/tasks/${ids.alice}/files`)).status === 503);
    const res = await get(`/api/v1/tasks/${ids.alice}/files/read?path=stdout`);
    expect([res.status, codeOf(res.body)]).toEqual([503, 'SANDBOX_UNREACHABLE']);
  });
});
