/// <reference lib="dom" />
/**
 * The dashboard as an operator uses it: headless Chromium against the production build, a real
 * control plane and a real agent. The tests run in order on one cluster, like one operator's
 * session; one near the end visits every page and insists on a clean console (`npm run
 * screenshots` runs it to write the README's screenshots).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';
import { ok } from '../../../control-plane/test/support/client';
import { MesosClient } from '../../../control-plane/test/support/mesos-client';
import { defined, until } from '@arbiter/test-support';
import { ADMIN_TOKEN, type BrowserCluster, screenshot, startBrowserCluster } from '../support/cluster';

const HOST = 'dashboard-test-node';

/**
 * Waits until `text` is visible in `scope`. Only visible matches count: while a streamed page
 * swaps its server-rendered parts in, the same text can sit in a hidden copy for a moment.
 */
function shown(scope: Page | Locator, text: string): Promise<void> {
  return scope.getByText(text).filter({ visible: true }).waitFor();
}

/** The text of the first element matching `selector` once it satisfies `check`. */
async function waitForText(page: Page, selector: string, check: (text: string) => boolean, what: string): Promise<string> {
  let last = '';
  await until(
    async () => {
      last =
        (await page
          .locator(selector)
          .first()
          .textContent()
          .catch(() => null)) ?? '';
      return check(last);
    },
    20_000,
    `${what} (last seen: ${JSON.stringify(last.slice(0, 200))})`,
  );
  return last;
}

describe('dashboard in a real browser', () => {
  let c: BrowserCluster;
  let page: Page;
  let agentId: string;
  let scheduler: Scheduler | undefined;

  beforeAll(async () => {
    c = await startBrowserCluster();
    page = c.page;
    await until(async () => (await ok(c.t.client.GET('/api/v1/agents'))).total === 1, 20_000, 'the agent registered');
    agentId = (await ok(c.t.client.GET('/api/v1/agents'))).items[0].id;
  }, 180_000);

  /** The roles page's edit dialog of a role, open. */
  const editRole = async (role: string) => {
    await page.goto(c.url('/roles'));
    await page.getByLabel('Role', { exact: true }).fill(role);
    await page.getByRole('button', { name: 'Set weight or quota' }).click();
    return page.getByRole('dialog', { name: `Edit role ${role}` });
  };

  afterAll(async () => {
    scheduler?.close();
    // Unset when the cluster failed to start.
    await (c as BrowserCluster | undefined)?.close();
  });

  it('sends the security headers and refuses to sign in with a framework or agent token', async () => {
    const res = await fetch(c.url('/login'));
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect([res.headers.get('x-frame-options'), res.headers.get('x-content-type-options'), res.headers.get('referrer-policy')]).toEqual([
      'DENY',
      'nosniff',
      'same-origin',
    ]);
    const agentToken = await c.t.cp.issueServiceToken('dashboard-test-agent');
    const refused = await fetch(c.url('/api/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: agentToken }),
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain("agent principal 'dashboard-test-agent'");
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a wrong token with the API message, keeps it out of the URL, and signs in with the admin token', async () => {
    await page.goto(c.url('/agents'));
    await page.waitForURL(/\/login/);
    await page.getByLabel('API token').fill('arb_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page, 'the bearer token is unknown, revoked or expired (AUTH_TOKEN_INVALID)');
    expect(page.url()).not.toContain('arb_');
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(c.url('/agents'));
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    const cookies = await c.context.cookies();
    expect(cookies.find((k) => k.name === 'arbiter_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate(() => document.cookie)).not.toContain(ADMIN_TOKEN);
    // The cookie holds a session the control plane issued for this sign-in, not the token typed.
    const session = cookies.find((k) => k.name === 'arbiter_session')?.value ?? '';
    expect(session).not.toBe(ADMIN_TOKEN);
    expect((await c.t.request('GET', '/api/v1/whoami', undefined, { token: session })).body).toEqual({ principal: 'admin', kind: 'ADMIN' });
    c.errors.length = 0; // the refused sign-in logged its 401
  });

  it("refuses a change that another origin's page makes with the operator's cookie, and nothing changes", async () => {
    const tokensBefore = (await c.t.request('GET', '/api/v1/principals/admin/tokens')).body as unknown[];
    // A page on another port of the same host is same-site: the SameSite=Strict cookie goes with its requests.
    const target = c.url('/api/v1/principals/admin/tokens');
    const attacker = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<script>fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include' })` +
          `.finally(() => { document.title = 'sent'; });</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const other = await c.context.newPage();
    try {
      await other.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      await other.waitForFunction(() => document.title === 'sent');
    } finally {
      await other.close();
      attacker.close();
    }
    expect((await c.t.request('GET', '/api/v1/principals/admin/tokens')).body).toEqual(tokensBefore);
    // The same call with another origin named is refused with a code, before it reaches the control plane.
    const cookie = (await c.context.cookies()).find((k) => k.name === 'arbiter_session')?.value ?? '';
    const refused = await fetch(target, { method: 'POST', headers: { cookie: `arbiter_session=${cookie}`, origin: 'http://127.0.0.1:1' } });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([403, 'ORIGIN_REFUSED']);
    expect((await c.t.request('GET', '/api/v1/principals/admin/tokens')).body).toEqual(tokensBefore);
  });

  it('ends the session on the control plane when signing out', async () => {
    const origin = new URL(c.url('/')).origin;
    const signIn = await fetch(c.url('/api/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    expect(signIn.status).toBe(200);
    const session = /arbiter_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect((await c.t.request('GET', '/api/v1/whoami', undefined, { token: session })).status).toBe(200);
    const signOut = await fetch(c.url('/api/session'), { method: 'DELETE', headers: { cookie: `arbiter_session=${session}`, origin } });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.get('set-cookie')).toMatch(/arbiter_session=;/);
    expect((await c.t.request('GET', '/api/v1/whoami', undefined, { token: session })).status).toBe(401);
    // The admin's own token and the browser's session go on.
    expect((await c.t.request('GET', '/api/v1/whoami')).status).toBe(200);
  });

  it('shows the cluster on the overview: the agent capacity and the live connection', async () => {
    await page.goto(c.url('/'));
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const reachable = await waitForText(
      page,
      '.stat:has-text("agents reachable")',
      (t) => t.startsWith('1agents reachable of 1'),
      'one reachable agent',
    );
    await shown(page, '0 of 4 used (0%)');
    const live = await waitForText(page, '[data-testid=live-status]', (t) => t === 'Live', 'the event stream connected');
    expect([reachable.slice(0, '1agents reachable of 1'.length), live]).toEqual(['1agents reachable of 1', 'Live']);
  });

  it('lists the agent with its resources, and shows its detail', async () => {
    await page.goto(c.url('/agents'));
    await page.getByRole('link', { name: HOST }).waitFor();
    await shown(page, '1 agent; whitelist off');
    await page.getByRole('link', { name: HOST }).click();
    await page.getByRole('heading', { name: HOST }).waitFor();
    await shown(page, 'rack:r1');
    await shown(page, 'cpus:4;disk:10000;mem:4096;ports:[31000-31100]');
    expect(page.url()).toMatch(/\/agents\/[^/?#]+/);
  });

  it('takes the agent off the whitelist after a confirmation, and puts it back', async () => {
    await page.goto(c.url('/agents'));
    const toggle = page.getByRole('switch', { name: `${HOST} on the whitelist` });
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await toggle.click();
    const dialog = page.getByRole('dialog', { name: `Take ${HOST} off the whitelist?` });
    await shown(dialog, 'No whitelist is set now');
    await dialog.getByRole('button', { name: 'Remove from whitelist' }).click();
    await page.getByRole('switch', { name: `${HOST} on the whitelist`, checked: false }).waitFor();
    await shown(page, 'not whitelisted');
    expect(await ok(c.t.client.GET('/api/v1/whitelist'))).toEqual({ hostnames: [] });
    await toggle.click();
    await page.getByRole('switch', { name: `${HOST} on the whitelist`, checked: true }).waitFor();
    expect(await ok(c.t.client.GET('/api/v1/whitelist'))).toEqual({ hostnames: [HOST] });
    const audit = (await ok(c.t.client.GET('/api/v1/audit', { params: { query: { action: 'whitelist.update' } } }))).items;
    expect(audit.map((e) => e.actor)).toEqual(['admin', 'admin']);
  });

  it('creates a reservation and removes it after a confirmation', async () => {
    await page.goto(c.url('/reservations'));
    const form = page.getByRole('form', { name: 'Create a reservation' });
    await form.getByLabel('Agent').fill(HOST);
    await shown(form, `id ${agentId}`);
    await form.getByLabel('Role').fill('eng');
    await form.getByLabel('Resources').fill('cpus:1;mem:512');
    await form.getByRole('button', { name: 'Reserve' }).click();
    const table = page.getByRole('table', { name: 'Reservations' });
    await table.getByRole('cell', { name: 'eng', exact: true }).waitFor();
    const reservations = (await ok(c.t.client.GET('/api/v1/reservations'))).items;
    expect(reservations).toHaveLength(1);
    expect(reservations[0]).toMatchObject({ agentId, role: 'eng', principal: 'admin' });

    await table.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog', { name: 'Remove this reservation?' }).getByRole('button', { name: 'Unreserve' }).click();
    await shown(page, 'No reservation.');
    expect((await ok(c.t.client.GET('/api/v1/reservations'))).total).toBe(0);
  });

  it('says so when a what-if has no shares to show: no framework is subscribed yet', async () => {
    const dialog = await editRole('eng');
    await dialog.getByLabel('Weight').fill('2');
    await dialog.getByRole('button', { name: 'What if? Predict the next cycles' }).click();
    await dialog.getByRole('status').filter({ hasText: 'No role holds or is offered anything' }).waitFor();
    expect(await dialog.getByRole('table', { name: 'Predicted shares' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows the API validation error of a bad quota next to its field, then sets the quota', async () => {
    const dialog = await editRole('eng');
    await dialog.getByLabel('Quota guarantees').fill('cpus:lots');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const error = dialog.locator('.field:has(input[name=guarantees]) .error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/guarantees/);
    expect(await dialog.getByLabel('Quota guarantees').getAttribute('aria-invalid')).toBe('true');
    expect(await ok(c.t.client.GET('/api/v1/quota'))).toEqual([]);

    await dialog.getByLabel('Quota guarantees').fill('cpus:1;mem:256');
    await dialog.getByLabel('Quota limits').fill('cpus:2');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await shown(page, 'cpus: guarantee 1, limit 2');
    expect(await ok(c.t.client.GET('/api/v1/quota'))).toEqual([{ role: 'eng', guarantees: { cpus: 1, mem: 256 }, limits: { cpus: 2 } }]);
    c.errors.length = 0; // the refused quota logged its 400
  });

  it('schedules maintenance from the agents page, then starts and stops it on the maintenance page', async () => {
    await page.goto(c.url('/agents'));
    await page.getByRole('button', { name: 'Actions' }).click();
    await page.getByRole('menuitem', { name: 'Schedule maintenance…' }).click();
    await page
      .getByRole('dialog', { name: `Schedule maintenance for ${HOST}` })
      .getByRole('button', { name: 'Schedule' })
      .click();
    await shown(page, 'maintenance scheduled');
    expect((await ok(c.t.client.GET('/api/v1/maintenance/schedule'))).windows[0].machines).toEqual([{ hostname: HOST, ip: '' }]);

    await page.goto(c.url('/maintenance'));
    await page.getByRole('img', { name: 'Maintenance windows over time' }).getByText(HOST).waitFor();
    const machines = page.getByRole('table', { name: 'Machines in the schedule' });
    await shown(machines, 'DRAINING');
    await machines.getByRole('button', { name: 'Start maintenance' }).click();
    await page
      .getByRole('dialog', { name: `Start maintenance on ${HOST}?` })
      .getByRole('button', { name: 'Start maintenance' })
      .click();
    await shown(machines, 'DOWN');
    expect((await ok(c.t.client.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } }))).maintenance?.mode).toBe('DOWN');
    await machines.getByRole('button', { name: 'Stop maintenance' }).click();
    await page
      .getByRole('dialog', { name: `Stop maintenance on ${HOST}?` })
      .getByRole('button', { name: 'Stop maintenance' })
      .click();
    await shown(page, 'No machine is scheduled for maintenance.');
    expect((await ok(c.t.client.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } }))).maintenance).toBeNull();
  });

  it("follows a framework's dominant share live, without reloading", async () => {
    await page.goto(c.url('/frameworks'));
    await shown(page, 'No framework has subscribed yet.');
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

    const framework = new Scheduler({
      master: c.t.cp.url,
      token: ADMIN_TOKEN,
      framework: { name: 'live-share', roles: ['eng'], failoverTimeoutSeconds: 300 },
    });
    scheduler = framework;
    let launched = false;
    const answer = async (offers: Offer[]) => {
      for (const offer of offers) {
        if (launched) await framework.decline([offer.id], { refuseSeconds: 300 });
        else {
          launched = true;
          await framework.launch(
            offer,
            [
              {
                taskId: 'sleeper',
                name: 'sleeper',
                command: { shell: 'sleep 300' },
                resources: [
                  { name: 'cpus', value: 1 },
                  { name: 'mem', value: 128 },
                ],
                labels: [{ key: 'tier', value: 'web' }, { key: 'canary' }],
                discovery: { visibility: 'CLUSTER', name: 'sleeper-svc', ports: [{ number: 8080, name: 'http', protocol: 'tcp' }] },
                killPolicy: { gracePeriodSeconds: 10 },
                maxCompletionTimeSeconds: 86_400,
              },
            ],
            { refuseSeconds: 300 },
          );
        }
      }
    };
    framework.on('offers', (offers) => void answer(offers));
    await framework.start();

    const row = page.getByRole('row', { name: /live-share/ });
    await row.waitFor();
    // cpus 1 of 4 is its largest share of the cluster: 25%.
    await waitForText(page, 'tr:has-text("live-share") .usage .text', (t) => t === '25.0%', 'the share reached 25%');
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });

  it('predicts what a weight change would do before it is saved, and saves nothing', async () => {
    const dialog = await editRole('eng');
    await dialog.getByLabel('Weight').fill('4');
    await dialog.getByRole('button', { name: 'What if? Predict the next cycles' }).click();
    // eng's framework would take the whole agent: a share of 1 as things are, 1/4 at weight 4.
    const row = dialog.getByRole('row', { name: /^eng/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual(['1.000', '0.250']);
    await screenshot(page, 'roles-what-if');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await ok(c.t.client.GET('/api/v1/roles'))).find((r) => r.path === 'eng')?.weight).toBe(1);
    expect(c.errors).toEqual([]);
  });

  it('opens a cycle of the allocation history with its offers and decision trace', async () => {
    const fw = (await ok(c.t.client.GET('/api/v1/frameworks'))).items[0];
    await page.goto(c.url(`/allocations?frameworkId=${fw.id}`));
    const cycles = page.getByRole('table', { name: 'Allocation cycles' });
    await cycles.getByRole('link').first().waitFor();
    const id = ((await cycles.getByRole('link').first().textContent()) ?? '').replace('#', '');
    await cycles.getByRole('link').first().click();
    await page.getByRole('heading', { name: `Cycle #${id}` }).waitFor();
    await page.getByRole('table', { name: 'Offers of this cycle' }).getByRole('link', { name: 'live-share' }).waitFor();
    await page.getByRole('table', { name: 'Dominant shares' }).waitFor();
    await page.getByRole('heading', { name: 'Decision trace' }).waitFor();
    expect(page.url()).toContain(`/allocations/${id}`);
  });

  it('answers "why did this framework (not) get offers?" in words', async () => {
    const fw = (await ok(c.t.client.GET('/api/v1/frameworks'))).items[0];
    await page.goto(c.url(`/frameworks/${fw.id}`));
    const explanation = await waitForText(
      page,
      '[data-testid=explain]',
      (t) => /It received \d+ offers? in the last/.test(t),
      'the explanation',
    );
    expect(explanation).toMatch(/It received \d+ offers? in the last/);
  });

  it('shows a lost connection to the control plane and recovers from it by itself', async () => {
    await page.goto(c.url('/'));
    await waitForText(page, '[data-testid=live-status]', (t) => t === 'Live', 'live');
    await c.stopControlPlane();
    await waitForText(page, '[data-testid=live-status]', (t) => t === 'Connection lost, reconnecting…', 'the lost connection shown');
    await c.startControlPlane();
    await waitForText(page, '[data-testid=live-status]', (t) => t === 'Live', 'live again');
    await until(
      async () =>
        (await ok(c.t.client.GET('/api/v1/agents'))).items.at(0)?.status === 'REACHABLE' &&
        (await ok(c.t.client.GET('/api/v1/frameworks'))).items.at(0)?.connected === true,
      30_000,
      'agent and framework back',
    );
    expect((await ok(c.t.client.GET('/api/v1/agents'))).items.at(0)?.status).toBe('REACHABLE');
    c.errors.length = 0; // requests made while the control plane was down failed, as they should
  });

  it('manages access: creates a viewer, issues a token shown once, revokes it, and edits the ACLs with their errors shown', async () => {
    await page.goto(c.url('/access'));
    await page.getByRole('heading', { name: 'Access', exact: true, level: 1 }).waitFor();
    const create = page.getByRole('form', { name: 'Create a principal' });
    await create.getByLabel('Name').fill('ui-viewer');
    await create.getByLabel('Kind').selectOption('VIEWER');
    await create.getByRole('button', { name: 'Create principal' }).click();
    await shown(page, 'created viewer principal ui-viewer');
    await page.getByRole('button', { name: 'ui-viewer', exact: true }).click();
    const issue = page.getByRole('form', { name: 'Issue a token' });
    await issue.getByLabel('Token name').fill('from the dashboard');
    await issue.getByRole('button', { name: 'Issue token' }).click();
    await shown(page, 'Copy this token now: it is shown only once');
    const secret = await page.getByLabel('Token secret').inputValue();
    expect(secret).toMatch(/^arb_/);
    expect((await c.t.request('GET', '/api/v1/whoami', undefined, { token: secret })).body).toEqual({
      principal: 'ui-viewer',
      kind: 'VIEWER',
    });
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await shown(page, 'revoked token from the dashboard');
    await until(
      async () => (await c.t.request('GET', '/api/v1/whoami', undefined, { token: secret })).status === 401,
      5_000,
      'the token refused',
    );

    const editor = page.getByLabel('ACL document');
    await editor.fill('{"permissive": true, "run_tasks": [{"principals": {"type": "ANY"}, "roles": {"type": "ANY"}}]}');
    await page.getByRole('button', { name: 'Save ACLs' }).click();
    await shown(page, "run_tasks.0: unknown field 'roles' (expected 'principals' and 'users')");
    await editor.fill('{"permissive": true, "run_tasks": [{"principals": {"values": ["ui-viewer"]}, "users": {"type": "NONE"}}]}');
    await page.getByRole('button', { name: 'Save ACLs' }).click();
    await shown(page, 'ACLs saved');
    expect((await ok(c.t.client.GET('/api/v1/acls'))).document).toEqual({
      permissive: true,
      run_tasks: [{ principals: { values: ['ui-viewer'] }, users: { type: 'NONE' } }],
    });
    c.errors.length = 0; // the refused ACL document logged its 400
  });

  it('renders every page without console errors (and, for `npm run screenshots`, the README screenshots)', async () => {
    // Something on every page: a reservation, a maintenance window, a running task.
    await ok(
      c.t.client.POST('/api/v1/reservations', { body: { agentId, role: 'ops', resources: 'cpus:0.5;mem:256', labels: { team: 'ops' } } }),
      201,
    );
    const start = new Date(Date.now() + 2 * 3600_000).toISOString();
    await ok(
      c.t.client.PUT('/api/v1/maintenance/schedule', {
        body: { windows: [{ machines: [{ hostname: HOST }], unavailability: { start, durationSeconds: 4 * 3600 } }] },
      }),
    );
    const fw = (await ok(c.t.client.GET('/api/v1/frameworks'))).items[0];
    const task = (await ok(c.t.client.GET('/api/v1/tasks'))).items[0];
    const cycle = (await ok(c.t.client.GET('/api/v1/allocations', { params: { query: { frameworkId: fw.id } } }))).items[0];
    const pages: Array<[string, string, string]> = [
      ['overview', '/', 'Overview'],
      ['agents', '/agents', 'Agents'],
      ['agent', `/agents/${agentId}`, HOST],
      ['roles', '/roles', 'Roles'],
      ['reservations', '/reservations', 'Reservations'],
      ['maintenance', '/maintenance', 'Maintenance'],
      ['frameworks', '/frameworks', 'Frameworks'],
      ['framework', `/frameworks/${fw.id}`, 'live-share'],
      ['tasks', '/tasks', 'Tasks'],
      ['task', `/tasks/${task.id}`, `Task ${task.taskId}`],
      ['allocations', '/allocations', 'Allocation history'],
      ['cycle', `/allocations/${cycle.id}`, `Cycle #${cycle.id}`],
      ['audit', '/audit', 'Audit log'],
      ['access', '/access', 'Access'],
    ];
    for (const [name, path, heading] of pages) {
      await page.goto(c.url(path));
      await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      await page
        .locator('[aria-busy=true]')
        .first()
        .waitFor({ state: 'detached', timeout: 20_000 })
        .catch(() => undefined);
      // Two frames: what the page's last render changed is painted.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      expect(await page.locator('[role=alert].message.bad').count()).toBe(0);
      // The task's labels and service discovery, as its framework gave them.
      if (name === 'task') await page.getByText('tier=web').and(page.locator('.badge')).waitFor();
      if (name === 'task') await page.getByRole('heading', { name: 'Service discovery' }).waitFor();
      expect(await screenshot(page, name)).toBeGreaterThan(10_000);
    }
    const dark = await c.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.addCookies(await c.context.cookies());
    const darkPage = await dark.newPage();
    darkPage.on('console', (m) => m.type() === 'error' && c.errors.push(`dark ${darkPage.url()}: ${m.text()}`));
    await darkPage.goto(c.url('/'));
    await shown(darkPage, 'agents reachable of 1');
    // The light theme's background is rgb(246, 247, 249); the dark one replaces it.
    await darkPage.waitForFunction(() => getComputedStyle(document.body).backgroundColor !== 'rgb(246, 247, 249)');
    expect(await screenshot(darkPage, 'overview-dark')).toBeGreaterThan(10_000);
    await dark.close();
    expect(c.errors).toEqual([]);
  });

  it('shows a Mesos API framework beside the SDK ones, with its protocol', async () => {
    const mesos = new MesosClient(c.t.cp.url, `Bearer ${ADMIN_TOKEN}`);
    try {
      expect(
        await mesos.subscribe({
          user: 'nobody',
          name: 'mesos-analytics',
          role: 'analytics',
          webui_url: 'http://mesos-analytics.example/ui',
        }),
      ).toBe(200);
      await until(() => mesos.frameworkId !== undefined, 10_000, 'the Mesos framework subscribed');
      await page.goto(c.url('/frameworks'));
      const row = page.getByRole('row', { name: /mesos-analytics/ });
      await row.getByText('Mesos API').waitFor();
      expect(
        await page
          .getByRole('row', { name: /live-share/ })
          .getByText('Arbiter SDK')
          .count(),
      ).toBe(1);
      await screenshot(page, 'frameworks-mesos');
      await page.goto(c.url(`/frameworks/${mesos.frameworkId ?? ''}`));
      await page.getByRole('link', { name: 'http://mesos-analytics.example/ui' }).waitFor();
      expect(c.errors).toEqual([]);
    } finally {
      mesos.close();
    }
  });

  it("kills a running task from its framework's page, without leaving it", async () => {
    const other = new Scheduler({ master: c.t.cp.url, token: ADMIN_TOKEN, framework: { name: 'killable', roles: ['ops'] } });
    const offers: Offer[] = [];
    other.on('offers', (o) => offers.push(...o));
    other.on('rescind', (id) => offers.splice(0, offers.length, ...offers.filter((o) => o.id !== id)));
    const nextOffer = async () => {
      await until(() => offers.length > 0, 20_000, 'an offer to killable');
      return defined(offers.shift());
    };
    await other.start();
    try {
      await other.launch(await nextOffer(), [
        {
          taskId: 'victim-2',
          name: 'victim-2',
          command: { shell: 'sleep 300' },
          resources: [
            { name: 'cpus', value: 0.5 },
            { name: 'mem', value: 64 },
          ],
        },
      ]);
      const frameworkId = other.frameworkId ?? '';
      const stateOf = async (taskId: string) =>
        (await ok(c.t.client.GET('/api/v1/tasks', { params: { query: { frameworkId } } }))).items.find((t) => t.taskId === taskId)?.state;
      await until(
        async () => (await ok(c.t.client.GET('/api/v1/tasks', { params: { query: { frameworkId, state: 'RUNNING' } } }))).total === 1,
        20_000,
        'victim-2 RUNNING',
      );
      await page.goto(c.url(`/frameworks/${frameworkId}`));
      await page.getByRole('button', { name: 'Kill victim-2' }).click();
      const dialog = page.getByRole('dialog', { name: 'Kill task victim-2?' });
      await dialog.evaluate((el) => el.setAttribute('data-opened-before-update', ''));
      // The page updates under the open confirmation (another task of the framework runs, briefly):
      // the confirmation stays open, the same element.
      await other.launch(await nextOffer(), [
        {
          taskId: 'bystander',
          name: 'bystander',
          command: { shell: 'exit 0' },
          resources: [
            { name: 'cpus', value: 0.1 },
            { name: 'mem', value: 16 },
          ],
        },
      ]);
      // (Behind the modal dialog the page is inert: found by its markup, not its role.)
      await page.locator('a', { hasText: 'bystander' }).waitFor({ state: 'attached' });
      expect(await page.locator('dialog[data-opened-before-update][open]').count()).toBe(1);
      await dialog.getByRole('button', { name: 'Kill' }).click();
      await shown(page, 'kill sent to task victim-2');
      await until(async () => (await stateOf('victim-2')) === 'KILLED', 20_000, 'victim-2 KILLED');
      // Still on the framework's page.
      expect(new URL(page.url()).pathname).toBe(`/frameworks/${frameworkId}`);
      await page.getByRole('cell', { name: 'KILLED' }).first().waitFor();
      expect(c.errors).toEqual([]);
      // The next tests take a running task: none of this one's is left.
      await until(async () => (await stateOf('bystander')) === 'FINISHED', 20_000, 'bystander FINISHED');
    } finally {
      other.close();
    }
  });

  it('kills a running task from its page after a confirmation', async () => {
    const running = (await ok(c.t.client.GET('/api/v1/tasks', { params: { query: { state: 'RUNNING' } } }))).items[0];
    await page.goto(c.url(`/tasks/${running.id}`));
    await page.getByRole('button', { name: `Kill ${running.taskId}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Kill' }).click();
    await shown(page, `kill sent to task ${running.taskId}`);
    await until(
      async () => (await ok(c.t.client.GET('/api/v1/tasks/{id}', { params: { path: { id: running.id } } }))).state === 'KILLED',
      20_000,
      'the task KILLED',
    );
    await page.getByRole('cell', { name: 'KILLED' }).first().waitFor();
    expect(await page.getByRole('button', { name: `Kill ${running.taskId}` }).count()).toBe(0);
    expect(c.errors).toEqual([]);
  });

  it('drains the agent from its page: its task is killed and the agent shows DRAINED', async () => {
    const tenant = new Scheduler({ master: c.t.cp.url, token: ADMIN_TOKEN, framework: { name: 'tenant', roles: ['ops'] } });
    const offered = new Promise<Offer>((resolve) => tenant.once('offers', (offers) => resolve(offers[0])));
    await tenant.start();
    try {
      const offer = await offered;
      // A little of what the offer holds, reserved for the role or not, as the earlier tests left it.
      const some = (name: string, value: number) => ({
        ...offer.resources.find((r) => r.name === name && (r.value ?? 0) >= value),
        name,
        value,
      });
      await tenant.launch(offer, [
        { taskId: 'resident', name: 'resident', command: { shell: 'sleep 300' }, resources: [some('cpus', 0.1), some('mem', 16)] },
      ]);
      const frameworkId = tenant.frameworkId ?? '';
      const stateOf = async () => (await ok(c.t.client.GET('/api/v1/tasks', { params: { query: { frameworkId } } }))).items[0]?.state;
      await until(async () => (await stateOf()) === 'RUNNING', 20_000, 'resident RUNNING');
      await page.goto(c.url(`/agents/${agentId}`));
      await page.getByRole('button', { name: 'Actions' }).click();
      await page.getByRole('menuitem', { name: 'Drain…' }).click();
      const dialog = page.getByRole('dialog', { name: `Drain ${HOST}?` });
      await dialog.getByLabel('Grace period (seconds)').fill('1');
      await dialog.getByRole('button', { name: 'Drain' }).click();
      await until(async () => (await stateOf()) === 'KILLED', 20_000, 'resident KILLED');
      await shown(page, 'drained since');
      expect((await ok(c.t.client.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } }))).drainState).toBe('DRAINED');
      await screenshot(page, 'agent-drained');
      expect(c.errors).toEqual([]);
    } finally {
      tenant.close();
    }
  });
});
