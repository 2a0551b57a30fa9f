/**
 * `arbiter bench failover --agents 1000`: how fast a loaded cluster recovers from the loss of
 * its leader. Control-plane replicas (`--replicas`, default 2; child processes, on
 * DATABASE_URL's server in a scratch database, or on an embedded server) share the database;
 * N simulated agents (real socket.io connections from this process, given every replica's
 * URL, re-registering with their running tasks as an agent does) and one framework on the
 * scheduler SDK keep tasks running. Each replica reaches PostgreSQL through a TCP proxy of its
 * own, and its clients reach it through another (bench-proxy.ts), for the network faults.
 * Then the fault (`--fault`, default every one, each on a fresh cluster): `kill`, the leader
 * is SIGKILLed; `session`, the leader's coordination session is ended by PostgreSQL
 * (pg_terminate_backend, as a connection reset or a pooler would end it) while its process
 * runs on; `pause`, the leader is SIGSTOPped for `--fault-seconds` (default 30), then
 * SIGCONTed; `db-partition`, the leader's connections to PostgreSQL stall (no byte passes,
 * nothing closes) for that long; `db-outage`, every replica's do (a silent database);
 * `agent-partition`, the agents' connections stall. From the fault it measures the time until
 * the old leader stops leading, until a leader of a new term leads (none is expected after an
 * agent partition), until every agent has re-registered, until the first offer and until the
 * first task launch, and the first offer after the fault ended (the target: within 15 s).
 * Prints the figures, then one JSON line per fault.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { leftSilent, MasterUrls, type Reply, reconnectElsewhere, refusalOf, socketClientOptions } from '@arbiter/contracts';
import { FaultProxy } from './bench-proxy';

/** The faults the bench injects (see the header). */
export const FAILOVER_FAULTS = ['kill', 'session', 'pause', 'db-partition', 'db-outage', 'agent-partition'] as const;
export type FailoverFault = (typeof FAILOVER_FAULTS)[number];

export interface FailoverFlags {
  agents: number;
  /** Tasks kept running across the cluster before the fault. */
  tasks: number;
  /** Control-plane replicas (at least 2). */
  replicas?: number;
  /** The faults to measure, one fresh cluster each (default: all). */
  faults?: readonly FailoverFault[];
  /** How long a pause, partition or outage lasts (default 30 s). */
  faultSeconds?: number;
}

/** What a simulated agent's connections carry in their handshake, for the agent partition. */
const AGENT_TAG = 'sim=agent';

const TOKEN = `bench-${randomUUID()}`;
const BIN = path.resolve(__dirname, '../../bin/arbiter.js');
const AGENTS_NAMESPACE = '/agents';

interface Replica {
  child: ChildProcess;
  /** Its own address (health checks). */
  url: string;
  /** Its clients' proxy: the URL it advertises, and the one agents and the framework are given. */
  front: FaultProxy;
  /** Its proxy to PostgreSQL. */
  db: FaultProxy;
}

async function startReplica(databaseUrl: string, port: number): Promise<Replica> {
  const url = `http://127.0.0.1:${port}`;
  const target = new URL(databaseUrl);
  const db = new FaultProxy(target.hostname, Number(target.port || 5432));
  target.port = String(await db.listen());
  const front = new FaultProxy('127.0.0.1', port, AGENT_TAG);
  const advertised = `http://127.0.0.1:${await front.listen()}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: target.toString(),
    ARBITER_ADMIN_TOKEN: TOKEN,
    ARBITER_ADVERTISE_URL: advertised,
    ARBITER_ALLOCATION_INTERVAL: '0.25',
    ARBITER_AGENT_TIMEOUT: '60',
    LOG_LEVEL: 'error',
  };
  const child = spawn(process.execPath, [BIN, 'control-plane'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      // Kept (the last 20 KB) for when it exits unexpectedly; read, so the pipe never fills.
      out = (out + c.toString()).slice(-20_000);
      if (/admin token:.*\n/.test(out)) resolve({ child, url, front, db });
    };
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') console.error(`the control plane at ${url} exited (${signal ?? code}):\n${out}`);
    });
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`control plane exited with ${code}:\n${out}`)));
  });
}

async function health(url: string): Promise<{ role?: string; epoch?: number | null } | undefined> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) });
    return (await res.json()) as { role?: string; epoch?: number | null };
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function describeFault(fault: FailoverFault, seconds: number): string {
  return {
    kill: 'the leader SIGKILLed',
    session: "the leader's lock session ended",
    pause: `the leader SIGSTOPped for ${seconds} s`,
    'db-partition': `the leader cut off from PostgreSQL for ${seconds} s`,
    'db-outage': `PostgreSQL silent for every replica for ${seconds} s`,
    'agent-partition': `every agent cut off from the control planes for ${seconds} s`,
  }[fault];
}

/** Injects the fault into a cluster whose first replica leads; resolves when the fault has ended. */
async function injectFault(fault: FailoverFault, replicas: Replica[], ms: number, endSession: () => Promise<unknown>): Promise<void> {
  const [leader] = replicas;
  if (fault === 'kill') leader.child.kill('SIGKILL');
  else if (fault === 'session') await endSession();
  else if (fault === 'pause') {
    leader.child.kill('SIGSTOP');
    await sleep(ms);
    leader.child.kill('SIGCONT');
  } else {
    const proxies =
      fault === 'db-partition' ? [leader.db] : fault === 'db-outage' ? replicas.map((r) => r.db) : replicas.map((r) => r.front);
    for (const p of proxies) p.stall(fault === 'agent-partition' ? 'tagged' : 'all');
    await sleep(ms);
    for (const p of proxies) p.heal();
  }
}
const round = (ms: number) => Math.round(ms);

export async function runFailoverBench(flags: FailoverFlags): Promise<void> {
  const { io } = await import('socket.io-client');
  const { Scheduler } = await import('@arbiter/scheduler-sdk');
  const cp = await import('@arbiter/control-plane');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-failover-'));
  const run = async (databaseUrl: string, fault: FailoverFault) => {
    const replicas: Replica[] = [];
    const sockets: Array<ReturnType<typeof io>> = [];
    let scheduler: import('@arbiter/scheduler-sdk').Scheduler | undefined;
    let closing = false;
    try {
      for (let i = 0; i < Math.max(2, flags.replicas ?? 2); i++) replicas.push(await startReplica(databaseUrl, await freePort()));
      const masters = replicas.map((r) => `http://127.0.0.1:${r.front.port}`).join(',');
      // When each agent last registered (performance.now()), and the tasks it runs.
      const registeredAt = new Array<number>(flags.agents).fill(0);
      let launchedAfterKill = 0;
      let killedAt = Infinity;
      let endedAt = Infinity;
      const agentsUp: Array<Promise<void>> = [];
      for (let i = 0; i < flags.agents; i++) {
        const list = new MasterUrls(masters);
        // The agent's own socket options (connect timeout, reconnection pace).
        const s = io(new URL(AGENTS_NAMESPACE, list.current).toString(), {
          ...socketClientOptions({ token: TOKEN }),
          // In its handshake, for the proxies to tell agents' connections from the framework's.
          query: { sim: 'agent' },
        });
        sockets.push(s);
        let agentId: string | undefined;
        const running = new Map<string, { frameworkId: string; taskId: string; resources: unknown }>();
        let first: (() => void) | undefined;
        agentsUp.push(new Promise<void>((resolve) => (first = resolve)));
        s.on('connect_error', (err: Error & { data?: unknown }) =>
          reconnectElsewhere(s, AGENTS_NAMESPACE, list, refusalOf(err), () => !closing),
        );
        // A leader that steps down closes the sessions itself; socket.io does not come back by itself then (the agent does).
        s.on('disconnect', (reason) => {
          leftSilent(s, AGENTS_NAMESPACE, list, reason);
          if (reason === 'io server disconnect' && !closing) setTimeout(() => !closing && !s.connected && s.connect(), 1_000);
        });
        s.on('connect', () => {
          list.connected();
          void s
            .timeout(120_000)
            .emitWithAck('register', {
              ...(agentId ? { agentId } : {}),
              hostname: `sim-${i}`,
              resources: [
                { name: 'cpus', value: 8 },
                { name: 'mem', value: 16384 },
              ],
              attributes: {},
              tasks: [...running.values()].map((t) => ({ ...t, state: 'RUNNING' })),
            })
            .then((reply: Reply<{ agentId: string }>) => {
              if (!reply.ok) return;
              agentId = reply.agentId;
              registeredAt[i] = performance.now();
              first?.();
              first = undefined;
            })
            .catch(() => undefined);
        });
        s.on('launch', (m: { frameworkId: string; task: { taskId: string; resources: unknown } }) => {
          running.set(m.task.taskId, { frameworkId: m.frameworkId, taskId: m.task.taskId, resources: m.task.resources });
          if (performance.now() > killedAt) launchedAfterKill ||= performance.now();
          const status = (state: string) =>
            s.emitWithAck('status', {
              updateUuid: randomUUID(),
              frameworkId: m.frameworkId,
              taskId: m.task.taskId,
              agentId,
              state,
              timestamp: new Date().toISOString(),
              source: 'SOURCE_AGENT',
            });
          void status('STARTING')
            .then(() => status('RUNNING'))
            .catch(() => undefined);
        });
        setInterval(() => s.connected && s.emit('heartbeat', {}), 5_000).unref();
        s.connect();
      }
      await Promise.all(agentsUp);
      console.log(`${flags.agents} simulated agents registered with the leader at ${replicas[0].url}`);

      // One framework keeps --tasks tasks running (one cpu each), launching on the offers it gets.
      let offersAfterKill = 0;
      let offersAfterEnd = 0;
      let launched = 0;
      scheduler = new Scheduler({
        master: masters,
        token: TOKEN,
        framework: { name: 'bench-failover', roles: ['bench'], failoverTimeoutSeconds: 3600 },
      });
      const s = scheduler;
      s.on('error', () => undefined);
      s.on('offers', (offers) => {
        if (performance.now() > killedAt) offersAfterKill ||= performance.now();
        if (performance.now() >= endedAt) offersAfterEnd ||= performance.now();
        for (const offer of offers) {
          const want = Math.min(flags.tasks + (performance.now() > killedAt ? 1 : 0) - launched, 8);
          if (want <= 0) {
            void s.decline(offer.id, { refuseSeconds: 1 }).catch(() => undefined);
            continue;
          }
          launched += want;
          void s
            .launch(
              offer,
              Array.from({ length: want }, (_, k) => ({
                taskId: `t-${launched - want + k}`,
                name: 'bench',
                command: { shell: 'sleep 3600' },
                resources: [
                  { name: 'cpus', value: 1 },
                  { name: 'mem', value: 64 },
                ],
              })),
            )
            .catch(() => (launched -= want));
        }
      });
      await s.start();
      const deadline = Date.now() + 120_000;
      while (launched < flags.tasks && Date.now() < deadline) await sleep(100);
      await sleep(2_000);
      const epoch = (await health(replicas[0].url))?.epoch ?? 0;
      const seconds = flags.faultSeconds ?? 30;
      console.log(`${launched} tasks running; fault: ${describeFault(fault, seconds)}`);

      killedAt = performance.now();
      const ending = injectFault(fault, replicas, seconds * 1000, () =>
        cp.adminQuery(
          databaseUrl,
          `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [cp.LEADER_LOCK],
        ),
      ).then(() => (endedAt = performance.now()));
      // The agents' partition leaves the leader leading: no new term to wait for.
      const newTerm = fault !== 'agent-partition';
      let leaderAt = 0;
      let steppedDownAt = fault === 'kill' ? killedAt : 0;
      while (newTerm && !leaderAt) {
        const seen = await Promise.all(
          replicas.map((r) => (r.child.exitCode === null && r.child.signalCode === null ? health(r.url) : Promise.resolve(undefined))),
        );
        const now = performance.now();
        // A paused replica answers nothing: it has stopped leading once it says so.
        if (!steppedDownAt && seen[0] && (seen[0].role !== 'leader' || (seen[0].epoch ?? 0) > epoch)) steppedDownAt = now;
        if (seen.some((h) => h?.role === 'leader' && (h.epoch ?? 0) > epoch)) leaderAt = now;
        else await sleep(20);
        if (now - killedAt > 180_000) throw new Error('no replica led a new term within 180 s');
      }
      await ending;
      steppedDownAt ||= NaN;
      while (registeredAt.some((t) => t < killedAt) || !offersAfterKill || !launchedAfterKill || !offersAfterEnd) {
        if (performance.now() - endedAt > 300_000) break;
        await sleep(20);
      }
      const allAgents = registeredAt.some((t) => t < killedAt) ? NaN : Math.max(...registeredAt) - killedAt;
      const sorted = registeredAt.map((t) => t - killedAt).sort((a, b) => a - b);
      const firstAgent = sorted[0];
      const halfAgents = sorted[Math.floor(sorted.length / 2)];
      const result = {
        fault,
        replicas: replicas.length,
        agents: flags.agents,
        tasks: launched,
        faultMs: round(endedAt - killedAt),
        oldLeaderStoppedMs: round(steppedDownAt - killedAt),
        leaderMs: newTerm ? round(leaderAt - killedAt) : NaN,
        agentsReregisteredMs: round(allAgents),
        firstAgentMs: round(firstAgent),
        halfAgentsMs: round(halfAgents),
        firstOfferMs: offersAfterKill ? round(offersAfterKill - killedAt) : NaN,
        firstLaunchMs: launchedAfterKill ? round(launchedAfterKill - killedAt) : NaN,
        firstOfferAfterEndMs: offersAfterEnd ? round(offersAfterEnd - endedAt) : NaN,
      };
      console.log(`from the fault (${fault}):`);
      console.log(`  old leader stopped leading   ${result.oldLeaderStoppedMs} ms`);
      console.log(`  a new term leads after       ${result.leaderMs} ms`);
      console.log(`  first agent re-registered    ${result.firstAgentMs} ms`);
      console.log(`  half of them re-registered   ${result.halfAgentsMs} ms`);
      console.log(`  all ${flags.agents} agents re-registered ${result.agentsReregisteredMs} ms`);
      console.log(`  first offer after            ${result.firstOfferMs} ms`);
      console.log(`  first task launched after    ${result.firstLaunchMs} ms`);
      console.log(`  the fault lasted             ${result.faultMs} ms`);
      console.log(`  first offer after its end    ${result.firstOfferAfterEndMs} ms`);
      console.log(JSON.stringify(result));
    } finally {
      closing = true;
      scheduler?.close();
      for (const s of sockets) s.close();
      for (const r of replicas) {
        if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
        await r.front.close();
        await r.db.close();
      }
    }
  };
  try {
    for (const fault of flags.faults ?? FAILOVER_FAULTS) {
      if (process.env.DATABASE_URL) await cp.withScratchDatabase(process.env.DATABASE_URL, (u) => run(u, fault));
      else {
        const db = await cp.openDatabase({ dataDir: path.join(dataDir, `postgres-${fault}`), embeddedDbPort: 0 });
        try {
          await run(db.url, fault);
        } finally {
          await db.stop();
        }
      }
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
