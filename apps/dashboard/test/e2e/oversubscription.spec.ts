/// <reference lib="dom" />
/**
 * Oversubscription on the dashboard, in headless Chromium against the production build: an
 * agent reporting revocable cpus (its estimator's total) with revocable tasks of a framework
 * that takes them, one of them evicted by its QoS controller. The agent's page shows the
 * revocable capacity apart and marks the revocable tasks; the overview shows the cluster's
 * revocable capacity and the evictions of the last 24 hours, linking to the tasks filtered by
 * that reason.
 */
import { Resources } from '@arbiter/allocator';
import type { Locator, Page } from 'playwright-core';
import { ok } from '../../../control-plane/test/support/client';
import { ProtocolAgent } from '../../../control-plane/test/support/fake-agent';
import { Recorder } from '../../../control-plane/test/support/recorder';
import { defined, until } from '../../../control-plane/test/support/until';
import { ADMIN_TOKEN, type BrowserCluster, screenshot, startBrowserCluster } from '../support/cluster';

const shown = (where: Page | Locator, text: string) => where.getByText(text, { exact: false }).filter({ visible: true }).first().waitFor();

describe('oversubscription on the dashboard', () => {
  let c: BrowserCluster;
  let page: Page;
  let agent: ProtocolAgent;
  let framework: Recorder;
  let agentId = '';

  beforeAll(async () => {
    c = await startBrowserCluster();
    page = c.page;
    await c.signIn();
    framework = new Recorder(c.t, { name: 'best-effort', roles: ['best-effort'], capabilities: ['REVOCABLE_RESOURCES'] });
    const { frameworkId } = await framework.s.start();
    agent = new ProtocolAgent(c.t.cp.url, ADMIN_TOKEN, {
      hostname: 'oversubscribed-node',
      resources: [...Resources.fromScalars({ cpus: 4, mem: 2048 }).toJSON(), { name: 'cpus', value: 2, revocable: true }],
    });
    agentId = await agent.register();
    await until(() => framework.offers.some((o) => o.agentId === agentId), 20_000, 'an offer of the oversubscribed agent');
    const offer = defined(framework.offers.find((o) => o.agentId === agentId));
    const task = (taskId: string) => ({
      taskId,
      name: taskId,
      command: { shell: 'sleep 1000' },
      resources: [...Resources.fromScalars({ mem: 32 }).toJSON(), { name: 'cpus', value: 0.5, revocable: true }],
    });
    await framework.s.launch(offer, [task('batch-1'), task('batch-2')], { refuseSeconds: 3600 });
    await until(() => framework.states('batch-1').includes('RUNNING') && framework.states('batch-2').includes('RUNNING'), 20_000);
    // The agent's QoS controller evicts one of them.
    await agent.status(frameworkId, 'batch-2', 'KILLED', 'REASON_CONTAINER_PREEMPTED');
    await until(async () => (await ok(c.t.client.GET('/api/v1/cluster'))).revocable.used.cpus === 0.5, 20_000, 'the eviction recorded');
  }, 300_000);

  afterAll(async () => {
    agent.close();
    framework.s.close();
    await c.close();
  });

  it("shows the agent's revocable capacity apart from its regular resources, and marks its revocable tasks", async () => {
    await page.goto(c.url(`/agents/${agentId}`));
    const revocable = page.getByRole('region', { name: 'Revocable (oversubscribed)' });
    await shown(revocable, '0.5 of 2 used');
    // The regular cpus leave the revocable ones out.
    await shown(page.getByRole('region', { name: 'Resources' }), 'of 4 used');
    const tasks = page.getByRole('table', { name: 'Tasks on this agent' });
    await tasks
      .getByRole('row', { name: /batch-1/ })
      .getByText('revocable', { exact: true })
      .waitFor();
    expect(await screenshot(page, 'agent-revocable')).toBeGreaterThan(0);
    // An agent that reports none has no such panel.
    const plain = (await ok(c.t.client.GET('/api/v1/agents'))).items.find((a) => a.hostname === 'dashboard-test-node');
    await page.goto(c.url(`/agents/${defined(plain).id}`));
    await page.getByRole('region', { name: 'Resources' }).waitFor();
    expect(await page.getByRole('region', { name: 'Revocable (oversubscribed)' }).count()).toBe(0);
    expect(c.errors).toEqual([]);
  });

  it("shows the cluster's revocable capacity and the evictions of the last 24 hours, linking to the evicted tasks", async () => {
    await page.goto(c.url('/'));
    await shown(page.getByRole('region', { name: 'Revocable (oversubscribed)' }), '0.5 of 2 used');
    const evictions = page.getByRole('link', { name: '1 evictions in the last 24 hours' });
    await evictions.waitFor();
    expect(await screenshot(page, 'overview-revocable')).toBeGreaterThan(0);
    await evictions.click();
    await page.waitForURL(c.url('/tasks?reason=REASON_CONTAINER_PREEMPTED'));
    const table = page.getByRole('table', { name: 'Tasks' });
    await table.getByRole('row', { name: /batch-2/ }).waitFor();
    expect(await table.getByRole('row', { name: /batch-1/ }).count()).toBe(0);
    expect(await page.getByLabel('Reason').inputValue()).toBe('REASON_CONTAINER_PREEMPTED');
    expect(c.errors).toEqual([]);
  });
});
