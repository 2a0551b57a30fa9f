/**
 * `arbiter start` (what `npm start` runs): a working local cluster in one command. It runs the
 * control plane on the embedded PostgreSQL (or DATABASE_URL), the dashboard (built on first
 * start) and one agent offering this machine's resources, prints the URLs and the admin
 * token, and on Ctrl-C stops the agent (killing its tasks), the dashboard and then the
 * control plane. Takes the control plane's settings.
 *
 * Unlike `arbiter control-plane`, which shows a generated admin token once, a local cluster
 * keeps it in `<data dir>/admin-token` (readable by its owner only) so that every start can
 * print it: the machine's owner is the cluster's admin.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { refuse } from '../ops/errors';
import { untilSignal } from '../signals';
import { addSettingFlags, configOrExit, printAdminToken, settingFlags, startOrExplain } from './control-plane';
import { agentFlagOptions, loadAgentModules } from './agent-flags';
import { assertPortFree, dashboardPort, ensureDashboardBuilt, type RunningDashboard, startDashboard, stopLeftDashboard } from './dashboard';

/** The admin token to show: the one just generated (kept for later starts), or the one kept. */
function localAdminToken(file: string, admin: { source: string; token?: string }): { source: string; token?: string } {
  if (admin.source === 'generated' && admin.token) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${admin.token}\n`, { mode: 0o600 });
    return admin;
  }
  if (admin.source === 'existing' && fs.existsSync(file)) return { source: 'existing', token: fs.readFileSync(file, 'utf8').trim() };
  return admin;
}

export function register(program: Command): void {
  const command = program
    .command('start')
    .description(
      "run a local cluster: the control plane on an embedded PostgreSQL and an agent with this machine's resources (Ctrl-C stops it)",
    );
  addSettingFlags(command)
    .option('--no-agent', 'do not start the local agent')
    .option('--no-dashboard', 'do not start the dashboard')
    .option('--dashboard-port <n>', 'port of the dashboard (env DASHBOARD_PORT, default 3000)')
    .option(
      '--agent-modules <file>',
      "the local agent's modules, a JSON file as `arbiter agent --modules` takes (ARBITER_AGENT_MODULES; docs/modules.md); --modules names the control plane's",
    )
    .action(async (opts: Record<string, string | undefined> & { agent?: boolean; dashboard?: boolean }) => {
      const config = configOrExit(settingFlags(opts));
      if (!config) return;
      let port: number;
      try {
        port = dashboardPort(opts.dashboardPort);
      } catch (err) {
        refuse((err as Error).message, 2);
        return;
      }
      // The local agent's settings are the ARBITER_* variables `arbiter agent` reads (GC, logs,
      // images, ports, isolation, the fetcher, the task user), checked before anything runs.
      let local: Awaited<ReturnType<typeof localAgentSettings>> | undefined;
      try {
        local = opts.agent === false ? undefined : await localAgentSettings(path.join(config.dataDir, 'agent'));
      } catch (err) {
        refuse(`the local agent did not start: ${(err as Error).message}`, 2);
        return;
      }
      // The local agent's modules load before anything runs: one that cannot be loaded stops the start.
      let agentModules: Awaited<ReturnType<typeof loadAgentModules>>;
      try {
        agentModules =
          opts.agent === false ? undefined : await loadAgentModules(opts.agentModules ?? (process.env.ARBITER_AGENT_MODULES || undefined));
      } catch (err) {
        refuse(`the local agent did not start: ${(err as Error).message}`, 1);
        return;
      }
      // Build and check the port before anything runs: a failure leaves nothing behind. A dashboard
      // server a killed `arbiter start` left running on this data directory is stopped first.
      const dashboardPidFile = path.join(config.dataDir, 'dashboard.pid');
      if (opts.dashboard !== false) {
        try {
          ensureDashboardBuilt();
          await stopLeftDashboard(dashboardPidFile);
          await assertPortFree(port);
        } catch (err) {
          refuse((err as Error).message, 1);
          await agentModules?.modules.close();
          return;
        }
      }
      const cp = await import('@arbiter/control-plane');
      const controlPlane = await startOrExplain(cp, config);
      if (!controlPlane) {
        await agentModules?.modules.close();
        return;
      }
      const tokenFile = path.join(config.dataDir, 'admin-token');
      const admin = localAdminToken(tokenFile, controlPlane.admin);
      let dashboard: RunningDashboard | undefined;
      if (opts.dashboard !== false) {
        try {
          // Under TLS, the dashboard trusts ARBITER_CA_FILE, else the certificate itself (self-signed).
          dashboard = await startDashboard({
            apiUrl: controlPlane.url,
            port,
            caFile: process.env.ARBITER_CA_FILE || config.tlsCert?.file,
            pidFile: dashboardPidFile,
          });
        } catch (err) {
          refuse((err as Error).message, 1);
          await controlPlane.close();
          await agentModules?.modules.close();
          return;
        }
      }
      let agent: import('@arbiter/agent').Agent | undefined;
      let agentLogger: import('pino').Logger | undefined;
      if (local) {
        const { lib, resources, workDir, more } = local;
        const { default: pino } = await import('pino');
        const token = await controlPlane.issueServiceToken('local-agent');
        const logger = (agentLogger = pino({ name: 'arbiter-agent', level: config.logLevel }));
        agent = new lib.Agent({
          ...(agentModules ? { modules: agentModules.modules } : {}),
          master: controlPlane.url,
          token,
          hostname: os.hostname(),
          resources: resources.toJSON(),
          attributes: {},
          workDir,
          ...more,
          ...(config.tlsCert
            ? { ca: process.env.ARBITER_CA_FILE ? fs.readFileSync(process.env.ARBITER_CA_FILE, 'utf8') : config.tlsCert.pem }
            : {}),
          killTasksOnExit: true,
          logger,
        });
        agentModules?.attach(logger);
        agent.start();
      }
      console.log('');
      console.log('Arbiter is running.');
      if (dashboard) console.log(`  dashboard:     ${dashboard.url}`);
      console.log(`  control plane: ${controlPlane.url}`);
      console.log(`  REST API:      ${controlPlane.url}/api/v1`);
      console.log(`  Swagger UI:    ${controlPlane.url}/api/docs`);
      console.log(
        `  database:      ${controlPlane.database.kind === 'embedded' ? `embedded PostgreSQL, data in ${config.dataDir}` : 'DATABASE_URL'}`,
      );
      if (agent) console.log(`  local agent:   ${os.hostname()}, work dir ${path.join(config.dataDir, 'agent')}`);
      printAdminToken(admin, admin.token ? tokenFile : undefined);
      console.log('Press Ctrl-C to stop.');
      const signal = await untilSignal();
      console.log(`\n${signal}: stopping`);
      await agent?.stop();
      await agentModules?.modules.close();
      await dashboard?.stop();
      await controlPlane.close();
      // The agent's last lines out first (pino writes asynchronously; the control plane's close flushes its own).
      await new Promise<void>((resolve) => (agentLogger ? agentLogger.flush(() => resolve()) : resolve()));
      console.log('stopped');
    });
}

/** The local agent's resources (this machine's) and its options from the environment (agent-flags.ts). */
async function localAgentSettings(workDir: string) {
  const lib = await import('@arbiter/agent');
  const { parseResources } = await import('@arbiter/allocator');
  const resources = parseResources(lib.detectResources(workDir));
  return { lib, resources, workDir, more: agentFlagOptions({}, lib, resources) };
}
