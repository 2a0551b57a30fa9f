/**
 * `arbiter cluster-ha --replicas 3 --agents 2` (`npm run cluster:ha`): the highly available
 * topology of docker/compose.yaml as local processes: PostgreSQL (DATABASE_URL's server, else
 * an embedded one), N control-plane replicas (one leads), the dashboard over all of them and M
 * agents that find the leader. Prints every URL; Ctrl-C stops everything.
 * `arbiter compose [--write FILE]`: the same topology as a compose file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { composeYaml, haTopology, masterList, type Service } from '../topology';
import { untilSignal } from '../signals';
import { assertPortFree, ensureDashboardBuilt, startDashboard } from './dashboard';

const ARBITER_BIN = path.resolve(__dirname, '../../bin/arbiter.js');

/** Set once Ctrl-C stops the cluster: exits are expected from then on. */
let stopping = false;

interface Running {
  name: string;
  child: ChildProcess;
}

/** Spawns `arbiter <args>` with its output prefixed by the service's name. */
function spawnArbiter(name: string, args: string[], env: Record<string, string>, logDir: string): Running {
  const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const child = spawn(process.execPath, [ARBITER_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`${name} exited (${signal ?? `code ${code}`}); its log: ${path.join(logDir, `${name}.log`)}`);
  });
  return { name, child };
}

async function waitForHealth(url: string, timeoutMs: number): Promise<{ role: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return (await res.json()) as { role: string };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become healthy within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function api(url: string, token: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: unknown = await res.json().catch(() => null);
  if (!res.ok && res.status !== 409) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

async function stopAll(running: Running[]): Promise<void> {
  await Promise.all(
    running.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

export function register(program: Command): void {
  program
    .command('cluster-ha')
    .description(
      'run the highly available topology of docker/compose.yaml as local processes: PostgreSQL, control-plane replicas, the dashboard and agents (Ctrl-C stops it)',
    )
    .option('--replicas <n>', 'control-plane replicas', '3')
    .option('--agents <n>', 'agents', '2')
    .option('--base-port <n>', 'port of the first replica; the others follow', '8081')
    .option('--dashboard-port <n>', 'port of the dashboard', '3000')
    .option('--no-dashboard', 'do not start the dashboard')
    .option('--data-dir <dir>', 'where the embedded PostgreSQL, the agents and the logs keep their files', './.arbiter/ha')
    .action(
      async (opts: { replicas: string; agents: string; basePort: string; dashboardPort: string; dashboard: boolean; dataDir: string }) => {
        let services: Service[];
        try {
          services = haTopology({
            replicas: Number(opts.replicas),
            agents: Number(opts.agents),
            basePort: Number(opts.basePort),
            dashboardPort: Number(opts.dashboardPort),
          });
          for (const s of services)
            if (s.kind === 'control-plane' || (s.kind === 'dashboard' && opts.dashboard)) await assertPortFree(s.hostPort);
          if (opts.dashboard) ensureDashboardBuilt();
        } catch (err) {
          console.error((err as Error).message);
          process.exitCode = 2;
          return;
        }
        const dataDir = path.resolve(opts.dataDir);
        const logDir = path.join(dataDir, 'logs');
        fs.mkdirSync(logDir, { recursive: true });
        const cp = await import('@arbiter/control-plane');
        const database = await cp.openDatabase({
          databaseUrl: process.env.DATABASE_URL || undefined,
          dataDir: path.join(dataDir, 'postgres'),
          embeddedDbPort: 0,
        });
        const tokenFile = path.join(dataDir, 'admin-token');
        const adminToken =
          process.env.ARBITER_ADMIN_TOKEN ||
          (fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : randomBytes(24).toString('hex'));
        fs.writeFileSync(tokenFile, `${adminToken}\n`, { mode: 0o600 });
        const local = (s: Service) => `http://127.0.0.1:${s.hostPort}`;
        const masters = masterList(services, local);
        const running: Running[] = [];
        let dashboardStop: (() => Promise<void>) | undefined;
        const stop = async () => {
          stopping = true;
          await dashboardStop?.();
          // Agents first (their tasks are killed), then the replicas, then PostgreSQL.
          await stopAll(running.filter((r) => r.name.startsWith('agent-')));
          await stopAll(running.filter((r) => !r.name.startsWith('agent-')));
          await database.stop();
        };
        try {
          const replicas = services.filter((s) => s.kind === 'control-plane');
          for (const s of replicas)
            running.push(
              spawnArbiter(
                s.name,
                ['control-plane'],
                {
                  ...s.env,
                  PORT: String(s.hostPort),
                  DATABASE_URL: database.url,
                  ARBITER_ADMIN_TOKEN: adminToken,
                  ARBITER_ADVERTISE_URL: local(s),
                },
                logDir,
              ),
            );
          const roles = await Promise.all(replicas.map((s) => waitForHealth(local(s), 120_000)));
          const first = local(replicas[0]);
          const agentServices = services.filter((s) => s.kind === 'agent');
          if (agentServices.length) {
            await api(first, adminToken, 'POST', '/api/v1/principals', {
              name: 'ha-agents',
              kind: 'AGENT',
              description: 'agents of arbiter cluster-ha',
            });
            const { token } = (await api(first, adminToken, 'POST', '/api/v1/principals/ha-agents/tokens', { name: 'cluster-ha' })) as {
              token: string;
            };
            for (const s of agentServices) {
              const workDir = path.join(dataDir, s.name);
              running.push(
                spawnArbiter(
                  s.name,
                  [
                    'agent',
                    '--master',
                    masters,
                    '--hostname',
                    s.name,
                    '--work-dir',
                    workDir,
                    '--resources',
                    s.env.ARBITER_AGENT_RESOURCES,
                    '--kill-tasks-on-exit',
                  ],
                  { ARBITER_AGENT_TOKEN: token },
                  logDir,
                ),
              );
            }
          }
          const dashboard = services.find((s) => s.kind === 'dashboard');
          let dashboardUrl: string | undefined;
          if (dashboard && opts.dashboard) {
            const d = await startDashboard({ apiUrl: masters, port: dashboard.hostPort });
            dashboardStop = () => d.stop();
            dashboardUrl = d.url;
          }
          console.log(`Arbiter HA cluster: ${replicas.length} control-plane replicas, ${agentServices.length} agents`);
          replicas.forEach((s, i) => console.log(`  ${s.name}: ${local(s)}  (${roles[i].role}; GET /health shows the leader)`));
          if (dashboardUrl) console.log(`  dashboard:       ${dashboardUrl}`);
          console.log(
            `  database:        ${database.kind === 'embedded' ? `embedded PostgreSQL in ${path.join(dataDir, 'postgres')}` : 'DATABASE_URL'}`,
          );
          console.log(`  admin token:     ${adminToken}  (kept in ${tokenFile})`);
          console.log(`  masters:         ${masters}  (ARBITER_MASTER for agents, frameworks and the CLI)`);
          console.log(`  logs:            ${logDir}`);
          console.log('Ctrl-C stops everything.');
        } catch (err) {
          console.error(`The cluster did not start: ${(err as Error).message} (logs in ${logDir})`);
          process.exitCode = 1;
          await stop();
          return;
        }
        const signal = await untilSignal();
        console.log(`${signal}: stopping`);
        await stop();
      },
    );

  program
    .command('compose')
    .description('print (or --write) docker/compose.yaml: the topology `arbiter cluster-ha` runs, for Docker Compose')
    .option('--replicas <n>', 'control-plane replicas', '3')
    .option('--agents <n>', 'agents', '2')
    .option('--write <file>', 'write it to this file instead of printing it')
    .action((opts: { replicas: string; agents: string; write?: string }) => {
      let yaml: string;
      try {
        yaml = composeYaml(haTopology({ replicas: Number(opts.replicas), agents: Number(opts.agents) }));
      } catch (err) {
        console.error((err as Error).message);
        process.exitCode = 2;
        return;
      }
      if (opts.write) {
        fs.writeFileSync(opts.write, yaml);
        console.log(`wrote ${opts.write}`);
      } else process.stdout.write(yaml);
    });
}
