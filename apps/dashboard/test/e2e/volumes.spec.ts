/// <reference lib="dom" />
/**
 * The Volumes page in headless Chromium against the production build: an operator creates a
 * persistent volume on disk reserved for a role (the real agent makes its directory), sees it
 * listed, and destroys it after a confirmation.
 */
import type { Locator, Page } from 'playwright-core';
import { ok } from '../../../control-plane/test/support/client';
import { type BrowserCluster, screenshot, startBrowserCluster } from '../support/cluster';

const HOST = 'dashboard-test-node';
const shown = (where: Page | Locator, text: string) => where.getByText(text, { exact: false }).filter({ visible: true }).first().waitFor();

describe('volumes on the dashboard', () => {
  let c: BrowserCluster;
  let page: Page;
  let agentId = '';

  beforeAll(async () => {
    c = await startBrowserCluster();
    page = c.page;
    await c.signIn();
    const agents = (await ok(c.t.client.GET('/api/v1/agents'))).items;
    agentId = agents.find((a) => a.hostname === HOST)?.id ?? '';
    await ok(c.t.client.POST('/api/v1/reservations', { body: { agentId, role: 'db', resources: 'disk:512' } }), 201);
  }, 300_000);

  afterAll(async () => {
    await c.close();
  });

  it('creates a volume on reserved disk and destroys it after a confirmation', async () => {
    await page.goto(c.url('/volumes'));
    const form = page.getByRole('form', { name: 'Create a volume' });
    await form.getByLabel('Agent').fill(HOST);
    await shown(form, `id ${agentId}`);
    await form.getByLabel('Role').fill('db');
    await form.getByLabel('Volume id').fill('data-1');
    await form.getByLabel('Size (MB)').fill('256');
    await form.getByRole('button', { name: 'Create' }).click();
    const table = page.getByRole('table', { name: 'Volumes' });
    await table.getByRole('cell', { name: 'data-1', exact: true }).waitFor();
    await shown(table, 'root disk');
    expect(await screenshot(page, 'volumes')).toBeGreaterThan(0);
    const volumes = (await ok(c.t.client.GET('/api/v1/volumes'))).items;
    expect(volumes).toEqual([
      expect.objectContaining({ agentId, role: 'db', persistenceId: 'data-1', disk: 256, principal: 'admin', inUseBy: [] }),
    ]);

    await table.getByRole('button', { name: 'Destroy' }).click();
    await page.getByRole('dialog', { name: 'Destroy volume data-1?' }).getByRole('button', { name: 'Destroy volume and data' }).click();
    await shown(page, 'No volume.');
    expect((await ok(c.t.client.GET('/api/v1/volumes'))).total).toBe(0);
    expect(c.errors).toEqual([]);
  });
});
