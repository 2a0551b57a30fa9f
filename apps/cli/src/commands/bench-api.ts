/**
 * `arbiter bench api`: the REST API under load. A control plane (child process, on
 * DATABASE_URL's server in a scratch database, or on an embedded server) is given a large
 * cluster's data (--agents agents, 50 frameworks with live tasks, a week of allocation history
 * and ended tasks), then --clients concurrent clients (keep-alive connections from this process)
 * call each route the dashboard reads, one route at a time for --seconds each, then each write
 * (weights, quota) for as long.
 * Prints requests per second and p50/p99 latency per route, both processes' CPU, and whether the
 * allocation cycles kept their interval meanwhile; then one JSON line.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectAgentSocket, cpuSeconds, metric, percentile, startChildControlPlane, stopChild } from './bench-process';

interface ApiBenchFlags {
  agents: number;
  clients: number;
  seconds: number;
  /** Days of allocation history (one recorded cycle every 10 s) and of ended tasks. */
  historyDays: number;
  /** Only the routes whose name holds one of these words (all when absent). */
  routes?: string[];
}

const TOKEN = `bench-${randomUUID()}`;
const FRAMEWORKS = 50;
const ROLES = ['web', 'batch', 'ml', 'ml/train', 'analytics'];
/** The control plane's allocation interval during the run (seconds). */
const INTERVAL = 1;

/**
 * The seeded agents, connected as they would be: each registers again under its id (reporting
 * the live tasks seeded on it) and heartbeats, in batches of 200. Resolves with a closer.
 */
async function connectAgents(url: string, agents: number, liveTasks: number, frameworks: number): Promise<() => void> {
  const sockets: Array<Awaited<ReturnType<typeof connectAgentSocket>>> = [];
  const timers: NodeJS.Timeout[] = [];
  for (let start = 1; start <= agents; start += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, agents - start + 1) }, async (_, k) => {
        const i = start + k;
        const s = await connectAgentSocket(url, TOKEN);
        sockets.push(s);
        // The seeded tasks on agent i: live-g for g = i, i + agents, ... (seedLargeCluster's layout).
        const tasks = [];
        for (let g = i - 1 || agents; g <= liveTasks; g += agents)
          tasks.push({
            frameworkId: `framework-${1 + (g % frameworks)}`,
            taskId: `live-${g}`,
            state: 'RUNNING',
            resources: [
              { name: 'cpus', value: 1 },
              { name: 'mem', value: 2048 },
            ],
          });
        const reply = (await s.emitWithAck('register', {
          agentId: `agent-${i}`,
          hostname: `node-${String(i).padStart(5, '0')}.rack-${Math.floor(i / 40)}`,
          resources: [
            { name: 'cpus', value: 16 },
            { name: 'mem', value: 65536 },
            { name: 'disk', value: 500000 },
            { name: 'ports', ranges: [[31000, 32000]] },
          ],
          attributes: { rack: `rack-${Math.floor(i / 40)}` },
          tasks,
        })) as { ok: boolean; heartbeatIntervalSeconds?: number; error?: { message: string } };
        if (!reply.ok) throw new Error(`agent ${i} was refused: ${reply.error?.message}`);
        timers.push(setInterval(() => s.emit('heartbeat', {}), (reply.heartbeatIntervalSeconds ?? 5) * 1000));
      }),
    );
  }
  return () => {
    for (const t of timers) clearInterval(t);
    for (const s of sockets) s.disconnect();
  };
}

interface Route {
  name: string;
  method: 'GET' | 'PUT' | 'POST';
  path: () => string;
  body?: () => unknown;
  /** A body sent as it is, with its media type (the operator API's protobuf). */
  raw?: { contentType: string; bytes: Buffer };
  /** Accept-Encoding: gzip, as most HTTP clients send it (the answer is gunzipped by the client). */
  gzip?: boolean;
}

const READS: Route[] = [
  { name: 'GET /api/v1/agents?limit=50', method: 'GET', path: () => '/api/v1/agents?limit=50' },
  { name: 'GET /api/v1/agents?limit=50&offset=5000', method: 'GET', path: () => '/api/v1/agents?limit=50&offset=5000' },
  // Every request a different page: nothing for concurrent requests to share.
  {
    name: 'GET /api/v1/agents?limit=50&offset=<random>',
    method: 'GET',
    path: () => `/api/v1/agents?limit=50&offset=${50 * Math.floor(Math.random() * 200)}`,
  },
  { name: 'GET /api/v1/cluster', method: 'GET', path: () => '/api/v1/cluster' },
  { name: 'GET /api/v1/frameworks', method: 'GET', path: () => '/api/v1/frameworks?limit=50' },
  { name: 'GET /api/v1/tasks?limit=50', method: 'GET', path: () => '/api/v1/tasks?limit=50' },
  { name: 'GET /api/v1/roles', method: 'GET', path: () => '/api/v1/roles' },
  { name: 'GET /api/v1/allocations?limit=50', method: 'GET', path: () => '/api/v1/allocations?limit=50' },
  // Mesos's operator API: the whole state at once (`npm run bench:operator`: 10 clients).
  { name: 'POST /api/v1 GET_STATE (json)', method: 'POST', path: () => '/api/v1', body: () => ({ type: 'GET_STATE' }) },
  { name: 'POST /api/v1 GET_STATE (json, gzip)', method: 'POST', path: () => '/api/v1', body: () => ({ type: 'GET_STATE' }), gzip: true },
  {
    name: 'POST /api/v1 GET_STATE (protobuf)',
    method: 'POST',
    path: () => '/api/v1',
    // mesos.v1.master.Call { type: GET_STATE (9) }: field 1, varint.
    raw: { contentType: 'application/x-protobuf', bytes: Buffer.from([0x08, 0x09]) },
  },
  {
    name: 'GET /api/v1/allocations/shares (a day)',
    method: 'GET',
    path: () => `/api/v1/allocations/shares?kind=ROLE&points=500&from=${new Date(Date.now() - 86_400_000).toISOString()}`,
  },
];

let writes = 0;
const WRITES: Route[] = [
  {
    name: 'PUT /api/v1/weights',
    method: 'PUT',
    path: () => '/api/v1/weights',
    body: () => ({ weights: [{ role: ROLES[writes % ROLES.length], weight: 1 + (writes++ % 5) }] }),
  },
  {
    name: 'PUT /api/v1/quota',
    method: 'PUT',
    path: () => '/api/v1/quota',
    body: () => ({ quotas: [{ role: ROLES[writes % 3], limits: { cpus: 1000 + (writes++ % 100) } }], force: true }),
  },
];

function call(agent: http.Agent, base: URL, route: Route): Promise<number> {
  const body = route.raw?.bytes ?? (route.body ? JSON.stringify(route.body()) : undefined);
  const type = route.raw?.contentType ?? 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: route.path(),
        method: route.method,
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body ? { 'content-type': type, accept: type } : {}),
          ...(route.gzip ? { 'accept-encoding': 'gzip' } : {}),
        },
      },
      (res) => {
        const read = res.headers['content-encoding'] === 'gzip' ? res.pipe(zlib.createGunzip()) : res;
        read.resume();
        read.on('end', () => resolve(res.statusCode ?? 0));
        read.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface PhaseResult {
  route: string;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

/** `clients` closed-loop clients, each calling the routes in turn for `seconds`. */
async function phase(
  base: URL,
  routes: Route[],
  clients: number,
  seconds: number,
  pid: number,
): Promise<{ results: PhaseResult[]; cpCpu: number; benchCpu: number; cycles: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies = new Map<string, number[]>(routes.map((r) => [r.name, []]));
  const errors = new Map<string, number>(routes.map((r) => [r.name, 0]));
  const cycles0 = await metric(base, TOKEN, 'arbiter_allocation_cycles_total');
  const cp0 = cpuSeconds(pid);
  const bench0 = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < end; i++) {
        const route = routes[i % routes.length];
        const t0 = performance.now();
        const status = await call(agent, base, route).catch(() => 0);
        latencies.get(route.name)?.push(performance.now() - t0);
        if (status >= 400 || status === 0) errors.set(route.name, (errors.get(route.name) ?? 0) + 1);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpCpu = (cpuSeconds(pid) - cp0) / elapsed;
  const u = process.cpuUsage(bench0);
  const benchCpu = (u.user + u.system) / 1e6 / elapsed;
  const cycles = (await metric(base, TOKEN, 'arbiter_allocation_cycles_total')) - cycles0;
  agent.destroy();
  return {
    results: routes.map((r) => {
      const xs = (latencies.get(r.name) ?? []).sort((a, b) => a - b);
      return {
        route: r.name,
        requests: xs.length,
        perSecond: Math.round(xs.length / elapsed),
        p50Ms: +percentile(xs, 50).toFixed(1),
        p99Ms: +percentile(xs, 99).toFixed(1),
        errors: errors.get(r.name) ?? 0,
      };
    }),
    cpCpu,
    benchCpu,
    cycles: cycles / elapsed,
  };
}

/** Phases run one after the other, as one: their routes, and their averages of CPU and cycles. */
function merge(phases: Array<Awaited<ReturnType<typeof phase>>>): Awaited<ReturnType<typeof phase>> {
  const avg = (f: (p: Awaited<ReturnType<typeof phase>>) => number) => phases.reduce((s, p) => s + f(p), 0) / Math.max(1, phases.length);
  return {
    results: phases.flatMap((p) => p.results),
    cpCpu: avg((p) => p.cpCpu),
    benchCpu: avg((p) => p.benchCpu),
    cycles: avg((p) => p.cycles),
  };
}

export async function runApiBench(flags: ApiBenchFlags): Promise<void> {
  const cp = await import('@arbiter/control-plane');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-api-'));
  const run = async (databaseUrl: string) => {
    // The data goes into the migrated database before the control plane starts on it.
    const t0 = performance.now();
    await cp.seedLargeCluster(databaseUrl, { agents: flags.agents, frameworks: FRAMEWORKS, roles: ROLES, historyDays: flags.historyDays });
    console.log(
      `seeded ${flags.agents} agents, ${FRAMEWORKS} frameworks, ${flags.historyDays} days of history in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const { child, pid, url } = await startChildControlPlane(databaseUrl, {
      ARBITER_ADMIN_TOKEN: TOKEN,
      ARBITER_DATA_DIR: dataDir,
      ARBITER_ALLOCATION_INTERVAL: String(INTERVAL),
      // The seeded agents connect after the start: they stay reachable for the whole run.
      ARBITER_AGENT_REREGISTER_TIMEOUT: '86400',
      ARBITER_FRAMEWORK_RESUBSCRIBE_GRACE: '86400',
      ARBITER_HISTORY_RETENTION_DAYS: '30',
      ARBITER_TASK_RETENTION_DAYS: '30',
      // Every agent and client connects from this machine's one address: room for them all.
      ARBITER_MAX_CONNECTIONS: String(flags.agents + flags.clients + 1000),
      ARBITER_MAX_CONNECTIONS_PER_ADDRESS: String(flags.agents + flags.clients + 1000),
    });
    let disconnect: () => void = () => undefined;
    try {
      const t1 = performance.now();
      disconnect = await connectAgents(url, flags.agents, Math.min(5 * flags.agents, 20_000), FRAMEWORKS);
      console.log(
        `${flags.agents} agents connected (registered again with their tasks) in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
      );
      const base = new URL(url);
      // Warm up (JIT, pools, caches) before measuring; then each route alone, as its own load.
      const chosen = (routes: Route[]) => routes.filter((r) => !flags.routes || flags.routes.some((w) => r.name.includes(w)));
      const [readRoutes, writeRoutes] = [chosen(READS), chosen(WRITES)];
      if (readRoutes.length + writeRoutes.length === 0) throw new Error(`no route's name holds any of: ${flags.routes?.join(', ')}`);
      await phase(base, readRoutes.length ? readRoutes : writeRoutes, flags.clients, 3, pid);
      const measured: Array<Awaited<ReturnType<typeof phase>>> = [];
      for (const route of [...readRoutes, ...writeRoutes]) measured.push(await phase(base, [route], flags.clients, flags.seconds, pid));
      const reads = merge(measured.slice(0, readRoutes.length));
      const w = merge(measured.slice(readRoutes.length));
      console.log(
        `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}; ${flags.clients} clients, ${flags.seconds} s per route, allocation interval ${INTERVAL} s`,
      );
      console.log('route                                          requests    req/s   p50 ms   p99 ms  errors');
      for (const r of [...reads.results, ...w.results])
        console.log(
          `${r.route.padEnd(45)} ${String(r.requests).padStart(9)} ${String(r.perSecond).padStart(8)} ${r.p50Ms.toFixed(1).padStart(8)} ${r.p99Ms.toFixed(1).padStart(8)} ${String(r.errors).padStart(7)}`,
        );
      for (const [name, p] of [
        ['reads', reads],
        ['writes', w],
      ] as const)
        console.log(
          `${name}: control plane CPU ${(p.cpCpu * 100).toFixed(0)}%, load generator CPU ${(p.benchCpu * 100).toFixed(0)}%; allocation cycles ${p.cycles.toFixed(2)}/s (interval ${INTERVAL} s)`,
        );
      console.log(
        JSON.stringify({
          bench: 'api',
          agents: flags.agents,
          clients: flags.clients,
          seconds: flags.seconds,
          historyDays: flags.historyDays,
          reads: reads.results,
          writes: w.results,
          controlPlaneCpu: { reads: +reads.cpCpu.toFixed(2), writes: +w.cpCpu.toFixed(2) },
          loadGeneratorCpu: { reads: +reads.benchCpu.toFixed(2), writes: +w.benchCpu.toFixed(2) },
          cyclesPerSecond: { reads: +reads.cycles.toFixed(2), writes: +w.cycles.toFixed(2) },
        }),
      );
    } finally {
      disconnect();
      await stopChild(child);
    }
  };
  try {
    await cp.withScratchDatabase(process.env.DATABASE_URL, run);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
