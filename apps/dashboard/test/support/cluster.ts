/**
 * What the browser tests run against: a real control plane on a fresh database, a real agent
 * (tasks as processes), the dashboard's production build served by `next start`, and headless
 * Chromium (Debian's package) driven by playwright-core. Console errors of every page are
 * collected so that a test can insist there are none.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Agent } from '@arbiter/agent';
import { parseResources } from '@arbiter/allocator';
import { launchChromium, type RunningDashboard, startDashboard } from '@arbiter/cli/dashboard';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../../control-plane/test/support/app';
import { freshDatabase } from '../../../control-plane/test/support/postgres';

export { ADMIN_TOKEN };

export interface BrowserCluster {
  t: TestControlPlane;
  agent: Agent;
  dashboard: RunningDashboard;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions seen so far, with the page they came from. */
  errors: string[];
  url(p: string): string;
  signIn(): Promise<void>;
  /** Stops the control plane (the database stays). */
  stopControlPlane(): Promise<void>;
  /** Starts it again on the same port and database: agent, frameworks and dashboard reconnect. */
  startControlPlane(): Promise<void>;
  close(): Promise<void>;
}

/** A port nothing listens on now: the control plane starts again on the same one (see startControlPlane). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startBrowserCluster(
  options: { agentResources?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<BrowserCluster> {
  // What has started so far is stopped again, newest first, if a later step fails.
  const started: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
  };
  const port = await freePort();
  const db = await freshDatabase();
  started.push(() => db.drop());
  const config = { port, allocationInterval: 0.5 };
  let t!: TestControlPlane;
  let agent!: Agent;
  let dashboard!: RunningDashboard;
  let browser!: Browser;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-dashboard-agent-'));
  started.push(() => fs.promises.rm(workDir, { recursive: true, force: true }));
  try {
    t = await startTestControlPlane({ databaseUrl: db.url, config });
    started.push(() => t.stop());
    agent = new Agent({
      master: t.cp.url,
      token: await t.cp.issueServiceToken('local-agent'),
      hostname: 'dashboard-test-node',
      resources: parseResources(options.agentResources ?? 'cpus:4;mem:4096;disk:10000;ports:[31000-31100]').toJSON(),
      attributes: { rack: 'r1' },
      workDir,
      killTasksOnExit: true,
    });
    agent.start();
    started.push(() => agent.stop());
    dashboard = await startDashboard({ apiUrl: t.cp.url, port: await freePort(), hostname: '127.0.0.1' });
    started.push(() => dashboard.stop());
    browser = await launchChromium();
    started.push(() => browser.close());
  } catch (err) {
    await stopAll();
    throw err;
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  const cluster: BrowserCluster = {
    get t() {
      return t;
    },
    agent,
    dashboard,
    browser,
    context,
    page,
    errors,
    url: (p) => `${dashboard.url}${p}`,
    async signIn() {
      await page.goto(cluster.url('/login'));
      await page.getByLabel('API token').fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(cluster.url('/'));
    },
    stopControlPlane: () => t.stop(),
    async startControlPlane() {
      t = await startTestControlPlane({ databaseUrl: db.url, config });
    },
    close: stopAll,
  };
  return cluster;
}

/** Where the README's screenshots live. */
export const SCREENSHOTS = path.resolve(__dirname, '../../../../docs/screenshots');

/**
 * Takes a page's screenshot: into docs/screenshots when ARBITER_SCREENSHOTS is set (what
 * `npm run screenshots` does), otherwise only in memory, so that a test run changes no file of
 * the repository. Resolves with the image's size in bytes.
 */
export async function screenshot(page: Page, name: string): Promise<number> {
  const options = { fullPage: true, animations: 'disabled' as const };
  if (!process.env.ARBITER_SCREENSHOTS) return (await page.screenshot(options)).length;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return (await page.screenshot({ ...options, path: path.join(SCREENSHOTS, `${name}.png`) })).length;
}
