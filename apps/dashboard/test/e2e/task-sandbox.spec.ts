/// <reference lib="dom" />
/**
 * A task's output in the dashboard (issue #31 item 3), in headless Chromium against the
 * production build, a real control plane and a real agent: the task page shows stdout as the
 * task writes it (live follow), switches to stderr, and opens a file from the sandbox browser; a
 * failed task that wrote only to stderr opens on stderr.
 */
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';
import { ok } from '../../../control-plane/test/support/client';
import { until } from '@arbiter/test-support';
import { ADMIN_TOKEN, type BrowserCluster, screenshot, startBrowserCluster } from '../support/cluster';

describe("a task's output and sandbox in the dashboard", () => {
  let c: BrowserCluster;
  let scheduler: Scheduler | undefined;

  beforeAll(async () => {
    c = await startBrowserCluster();
    await until(async () => (await ok(c.t.client.GET('/api/v1/agents'))).total === 1, 20_000, 'the agent registered');
  }, 180_000);

  afterAll(async () => {
    scheduler?.close();
    await c.close();
  }, 60_000);

  const nextOffer = (s: Scheduler) => new Promise<Offer>((resolve) => s.once('offers', (offers) => resolve(offers[0])));
  /** One task of this shell command on the offer. */
  const launchOne = (s: Scheduler, offer: Offer, taskId: string, task: { shell: string; cpus: number; mem: number }) =>
    s.launch(offer, [
      {
        taskId,
        name: taskId,
        command: { shell: task.shell },
        resources: [
          { name: 'cpus', value: task.cpus },
          { name: 'mem', value: task.mem },
        ],
      },
    ]);
  /** The API id of the framework's first task in `state`, once it has one. */
  const firstTaskIn = async (frameworkId: string, state: 'RUNNING' | 'FAILED', what: string) => {
    let id = '';
    await until(
      async () => {
        const tasks = await ok(c.t.client.GET('/api/v1/tasks', { params: { query: { frameworkId, state } } }));
        id = tasks.items[0]?.id ?? '';
        return id !== '';
      },
      20_000,
      what,
    );
    return id;
  };

  it('follows stdout while the task writes, shows stderr, and opens a sandbox file', async () => {
    const s = (scheduler = new Scheduler({ master: c.t.cp.url, token: ADMIN_TOKEN, framework: { name: 'chatty', roles: ['ops'] } }));
    const offered = nextOffer(s);
    await s.start();
    await launchOne(s, await offered, 'chatty-1', {
      shell: 'mkdir -p out; echo result-42 > out/result.txt; echo warning-7 >&2; for i in $(seq 1 300); do echo tick-$i; sleep 0.1; done',
      cpus: 0.5,
      mem: 64,
    });
    const frameworkId = s.frameworkId ?? '';
    const id = await firstTaskIn(frameworkId, 'RUNNING', 'chatty-1 RUNNING');
    const { page } = c;
    await c.signIn();
    await page.goto(c.url(`/tasks/${id}`));
    const output = page.getByLabel('Contents of stdout');
    await output.getByText(/tick-\d+/).waitFor();
    const lastTick = async () =>
      Math.max(0, ...((await output.textContent()) ?? '').split('\n').map((l) => Number(/^tick-(\d+)$/.exec(l)?.[1] ?? 0)));
    const first = await lastTick();
    // Live: later lines arrive without a reload.
    await until(async () => (await lastTick()) >= first + 5, 20_000, 'newer lines followed');

    await page.getByRole('region', { name: 'Output' }).getByRole('button', { name: 'stderr' }).click();
    await page.getByLabel('Contents of stderr').getByText('warning-7').waitFor();

    const files = page.getByRole('table', { name: 'Sandbox files' });
    await files.getByRole('button', { name: 'out/' }).click();
    await files.getByRole('button', { name: 'result.txt' }).click();
    await page.getByLabel('Contents of out/result.txt').getByText('result-42').waitFor();
    expect(await screenshot(page, 'task-output')).toBeGreaterThan(10_000);

    // A failed task that wrote only to stderr opens on it: why it failed, without a click.
    await launchOne(s, await nextOffer(s), 'broken-1', { shell: 'echo "disk full: /data" >&2; exit 1', cpus: 0.1, mem: 32 });
    const broken = await firstTaskIn(frameworkId, 'FAILED', 'broken-1 FAILED');
    await page.goto(c.url(`/tasks/${broken}`));
    await page.getByLabel('Contents of stderr').getByText('disk full: /data').waitFor();
    const pressed = page.getByRole('region', { name: 'Output' }).getByRole('button', { name: 'stderr' });
    expect(await pressed.getAttribute('aria-pressed')).toBe('true');
    expect(c.errors).toEqual([]);
  }, 90_000);
});
