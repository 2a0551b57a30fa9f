/**
 * `arbiter bench dashboard`: how fast each dashboard page first loads on a large cluster. A
 * control plane (on DATABASE_URL's server in a scratch database, or on an embedded server)
 * receives N simulated agents (real socket.io connections that register and heartbeat) and a
 * framework running tasks on some of them; the dashboard's production build serves it; headless
 * Chromium loads every page, each time in a fresh browser context (empty cache, as a first
 * visit), and times from navigation to the page showing its data (heading shown, nothing
 * loading) and to the page being live (its scripts hydrated: it reacts to input and events).
 * Prints a table, then one JSON line.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureDashboardBuilt, launchChromium, startDashboard } from './dashboard';
import { connectAgentSocket } from './bench-process';

interface DashboardBenchFlags {
  agents: number;
  runs: number;
}

const TOKEN = `bench-${randomUUID()}`;

/** Agents as real connections that register and heartbeat, in batches of 100. */
async function simulateAgents(url: string, n: number) {
  const sockets: Array<Awaited<ReturnType<typeof connectAgentSocket>>> = [];
  for (let start = 0; start < n; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, n - start) }, async (_, k) => {
        const i = start + k;
        const s = await connectAgentSocket(url, TOKEN);
        sockets.push(s);
        const rack = `rack-${String(Math.floor(i / 40)).padStart(2, '0')}`;
        const reply = (await s.emitWithAck('register', {
          hostname: `node-${String(i).padStart(5, '0')}.${rack}`,
          resources: [
            { name: 'cpus', value: 16 },
            { name: 'mem', value: 65536 },
            { name: 'disk', value: 500000 },
          ],
          attributes: { rack },
          tasks: [],
        })) as { ok: boolean; agentId: string; error?: { message: string } };
        if (!reply.ok) throw new Error(`agent ${i} was refused: ${reply.error?.message}`);
        const agentId = reply.agentId;
        setInterval(() => s.emit('heartbeat', {}), 5000).unref();
        s.on('launch', (m: { frameworkId: string; task: { taskId: string } }) => {
          for (const state of ['STARTING', 'RUNNING']) {
            s.emit(
              'status',
              {
                updateUuid: randomUUID(),
                frameworkId: m.frameworkId,
                taskId: m.task.taskId,
                agentId,
                state,
                timestamp: new Date().toISOString(),
                source: 'SOURCE_AGENT',
              },
              () => undefined,
            );
          }
        });
      }),
    );
  }
  return sockets;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

export async function runDashboardBench(flags: DashboardBenchFlags): Promise<void> {
  const cp = await import('@arbiter/control-plane');
  const { Scheduler } = await import('@arbiter/scheduler-sdk');
  ensureDashboardBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-dashboard-'));
  // Its agents' tasks run as another user, who must reach their sandboxes in here.
  fs.chmodSync(dataDir, 0o711);
  try {
    await cp.withScratchDatabase(process.env.DATABASE_URL, async (databaseUrl) => {
      const config = cp.loadConfig({
        PORT: '0',
        DATABASE_URL: databaseUrl,
        ARBITER_ADMIN_TOKEN: TOKEN,
        ARBITER_DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        ARBITER_AGENT_TIMEOUT: '120',
      });
      const controlPlane = await cp.startControlPlane(config);
      const sockets = await simulateAgents(controlPlane.url, flags.agents);
      console.log(`${flags.agents} simulated agents registered`);
      // Some history and use: a framework that runs a task on each of its first 200 offers.
      const scheduler = new Scheduler({
        master: controlPlane.url,
        token: TOKEN,
        framework: { name: 'bench-frontend', roles: ['web'], failoverTimeoutSeconds: 600 },
      });
      let launched = 0;
      // Offers one at a time; a refused launch or decline does not matter here.
      scheduler.on('offers', (offers) => {
        void (async () => {
          for (const offer of offers) {
            if (launched >= 200) await scheduler.decline([offer.id], { refuseSeconds: 3600 }).catch(() => undefined);
            else
              await scheduler
                .launch(offer, [
                  {
                    taskId: `web-${launched++}`,
                    name: 'web',
                    command: { shell: 'true' },
                    resources: [
                      { name: 'cpus', value: 2 },
                      { name: 'mem', value: 4096 },
                    ],
                  },
                ])
                .catch(() => undefined);
          }
        })();
      });
      await scheduler.start();
      const until = Date.now() + 30_000;
      while (launched < 200 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      const dashboard = await startDashboard({ apiUrl: controlPlane.url, port: 0, hostname: '127.0.0.1' });
      const browser = await launchChromium();
      try {
        const agents = (await (
          await fetch(`${controlPlane.url}/api/v1/agents?limit=1`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).json()) as { items: Array<{ id: string }> };
        const cycles = (await (
          await fetch(`${controlPlane.url}/api/v1/allocations?limit=1`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).json()) as { items: Array<{ id: string }> };
        const pages: Array<[string, string]> = [
          ['/', 'Overview'],
          ['/agents', 'Agents'],
          [`/agents/${agents.items[0].id}`, ''],
          ['/roles', 'Roles'],
          ['/reservations', 'Reservations'],
          ['/maintenance', 'Maintenance'],
          ['/frameworks', 'Frameworks'],
          ['/tasks', 'Tasks'],
          ['/allocations', 'Allocation history'],
          [`/allocations/${cycles.items[0]?.id ?? 1}`, ''],
          ['/audit', 'Audit log'],
        ];
        // A signed-in session, as an operator's browser would hold it.
        const login = await browser.newContext();
        const loginPage = await login.newPage();
        await loginPage.goto(`${dashboard.url}/login`);
        await loginPage.getByLabel('API token').fill(TOKEN);
        await loginPage.getByRole('button', { name: 'Sign in' }).click();
        await loginPage.waitForURL(`${dashboard.url}/`);
        const cookies = await login.cookies();
        await login.close();

        const results: Array<{ page: string; htmlMs: number; shownMs: number; liveMs: number; maxLiveMs: number }> = [];
        const ready = (live: boolean) =>
          `document.querySelector('main h1') !== null && document.querySelectorAll('[aria-busy=true]').length === 0${live ? " && document.documentElement.dataset.live === 'true'" : ''}`;
        for (const [url, heading] of pages) {
          const html: number[] = [];
          const shown: number[] = [];
          const live: number[] = [];
          // One unmeasured visit first, so the dashboard server's own caches are warm (the browser's are not).
          for (let run = 0; run <= flags.runs; run++) {
            const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
            await context.addCookies(cookies);
            const page = await context.newPage();
            const t0 = performance.now();
            await page.goto(`${dashboard.url}${url}`, { waitUntil: 'commit' });
            await page.waitForFunction(ready(false), undefined, { polling: 'raf' });
            const t1 = performance.now();
            await page.waitForFunction(ready(true), undefined, { polling: 'raf' });
            const t2 = performance.now();
            if (heading) await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
            if (url === '/agents') await page.locator('table[aria-label=Agents] tbody tr[data-index]').first().waitFor();
            if (run > 0) {
              // The server's part: until the last byte of the (streamed) HTML arrived.
              html.push(await page.evaluate<number>("performance.getEntriesByType('navigation')[0].responseEnd"));
              shown.push(t1 - t0);
              live.push(t2 - t0);
            }
            await context.close();
          }
          results.push({
            page: url,
            htmlMs: Math.round(median(html)),
            shownMs: Math.round(median(shown)),
            liveMs: Math.round(median(live)),
            maxLiveMs: Math.round(Math.max(...live)),
          });
        }
        console.log(
          `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}; database: ${process.env.DATABASE_URL ? 'DATABASE_URL (scratch database)' : 'embedded'}; ${flags.agents} agents, 200 tasks; ${flags.runs} cold loads per page`,
        );
        console.log('page                                           html  data shown   live (median, max) ms');
        for (const r of results)
          console.log(
            `${r.page.padEnd(46)}${String(r.htmlMs).padStart(6)}${String(r.shownMs).padStart(12)}${String(r.liveMs).padStart(10)}${String(r.maxLiveMs).padStart(8)}`,
          );
        // The control plane's side of those loads: mean time per API route, slowest first.
        const metrics = await (await fetch(`${controlPlane.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
        const routes = new Map<string, { sum: number; count: number }>();
        for (const m of metrics.matchAll(
          /^arbiter_http_request_duration_seconds_(sum|count)\{method="GET",route="([^"]+)"\} ([\d.e+-]+)$/gm,
        )) {
          const r = routes.get(m[2]) ?? { sum: 0, count: 0 };
          r[m[1] as 'sum' | 'count'] = Number(m[3]);
          routes.set(m[2], r);
        }
        const slowest = [...routes]
          .filter(([, r]) => r.count > 0)
          .map(([route, r]) => ({ route, meanMs: Math.round((r.sum / r.count) * 1000), calls: r.count }))
          .sort((a, b) => b.meanMs - a.meanMs)
          .slice(0, 6);
        console.log(`slowest API routes (mean ms, calls): ${slowest.map((r) => `${r.route} ${r.meanMs} (${r.calls})`).join('; ')}`);
        console.log(
          JSON.stringify({
            bench: 'dashboard',
            agents: flags.agents,
            runs: flags.runs,
            pages: results,
            slowestLiveMs: Math.max(...results.map((r) => r.liveMs)),
          }),
        );
      } finally {
        await browser.close();
        await dashboard.stop();
        scheduler.close();
        for (const s of sockets) s.disconnect();
        await controlPlane.close();
      }
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
