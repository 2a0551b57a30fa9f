/**
 * `arbiter bench e2e`: the whole loop under load. A control plane (child process, on
 * DATABASE_URL's server in a scratch database, or on an embedded server) receives N simulated
 * agents (real socket.io connections from this process, each answering a launch with STARTING
 * and RUNNING, then FINISHED after --task-ms) and M frameworks on the scheduler SDK that launch
 * short tasks on every offer. Prints task launches per second sustained (tasks reaching
 * RUNNING, every state persisted), offer-to-RUNNING latency p50/p99 and the control plane's
 * resident memory, then one JSON line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface E2eFlags {
  agents: number;
  frameworks: number;
  seconds: number;
  warmup: number;
  taskMs: number;
}

const TOKEN = `bench-${randomUUID()}`;
const BIN = path.resolve(__dirname, '../../bin/arbiter.js');

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function startControlPlane(databaseUrl: string | undefined, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', ARBITER_ADMIN_TOKEN: TOKEN, ARBITER_DATA_DIR: dataDir, LOG_LEVEL: 'error', ARBITER_ALLOCATION_INTERVAL: '0.1', ARBITER_AGENT_TIMEOUT: '60' };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, [BIN, 'control-plane'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /Arbiter control plane on (http:\/\/\S+)/.exec(out);
      if (m && /admin token:.*\n/.test(out)) resolve({ child, url: m[1] });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`control plane exited with ${code}:\n${out}`)));
  });
}

function residentMb(pid: number): number {
  // The control plane runs under `node .../arbiter.js`: its own process, no wrapper.
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export async function runE2eBench(flags: E2eFlags): Promise<void> {
  const { io } = require('socket.io-client') as typeof import('socket.io-client');
  const { Scheduler } = require('@arbiter/scheduler-sdk') as typeof import('@arbiter/scheduler-sdk');
  const cp = require('@arbiter/control-plane') as typeof import('@arbiter/control-plane');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-e2e-'));
  const run = async (databaseUrl: string | undefined) => {
    const { child, url } = await startControlPlane(databaseUrl, dataDir);
    const sockets: Array<import('socket.io-client').Socket> = [];
    const schedulers: Array<import('@arbiter/scheduler-sdk').Scheduler> = [];
    try {
      // Simulated agents: real connections, registering and answering launches like an agent.
      const agentReady: Array<Promise<void>> = [];
      for (let i = 0; i < flags.agents; i++) {
        const s = io(`${url}/agents`, { auth: { token: TOKEN }, transports: ['websocket'], forceNew: true, reconnection: false });
        sockets.push(s);
        let agentId = '';
        const status = (frameworkId: string, taskId: string, state: string) =>
          s.emitWithAck('status', { updateUuid: randomUUID(), frameworkId, taskId, agentId, state, timestamp: new Date().toISOString(), source: 'SOURCE_AGENT' });
        s.on('launch', async (m: { frameworkId: string; task: { taskId: string } }) => {
          await status(m.frameworkId, m.task.taskId, 'STARTING');
          await status(m.frameworkId, m.task.taskId, 'RUNNING');
          setTimeout(() => void status(m.frameworkId, m.task.taskId, 'FINISHED').catch(() => undefined), flags.taskMs);
        });
        agentReady.push(
          new Promise<void>((resolve, reject) => {
            s.once('connect', async () => {
              const reply = (await s.emitWithAck('register', { hostname: `sim-${i}`, resources: [{ name: 'cpus', value: 8 }, { name: 'mem', value: 16384 }], attributes: {}, tasks: [] })) as { ok: boolean; agentId: string };
              agentId = reply.agentId;
              setInterval(() => s.emit('heartbeat', {}), 5000).unref();
              resolve();
            });
            s.once('connect_error', reject);
          }),
        );
      }
      await Promise.all(agentReady);
      console.log(`${flags.agents} simulated agents registered; starting ${flags.frameworks} frameworks`);

      const latencies: number[] = [];
      let running = 0;
      let measuring = false;
      const launchedAt = new Map<string, number>();
      const need = { cpus: 1, mem: 128 };
      for (let f = 0; f < flags.frameworks; f++) {
        const s = new Scheduler({ master: url, token: TOKEN, framework: { name: `bench-${f}`, roles: [`bench-${f % 5}`] } });
        schedulers.push(s);
        let n = 0;
        s.on('offers', (offers) => {
          const received = performance.now();
          for (const offer of offers) {
            const cpus = offer.resources.find((r) => r.name === 'cpus')?.value ?? 0;
            const mem = offer.resources.find((r) => r.name === 'mem')?.value ?? 0;
            const count = Math.min(Math.floor(cpus / need.cpus), Math.floor(mem / need.mem));
            if (count === 0) {
              s.decline(offer.id, { refuseSeconds: 0 }).catch(() => undefined);
              continue;
            }
            const tasks = Array.from({ length: count }, () => {
              const taskId = `t${f}-${n++}`;
              launchedAt.set(taskId, received);
              return { taskId, name: 'bench', command: { shell: 'true' }, resources: [{ name: 'cpus', value: need.cpus }, { name: 'mem', value: need.mem }] };
            });
            s.launch(offer, tasks, { refuseSeconds: 0 }).catch(() => undefined);
          }
        });
        s.on('update', (u) => {
          if (u.state !== 'RUNNING') return;
          const t = launchedAt.get(u.taskId);
          launchedAt.delete(u.taskId);
          if (!measuring || t === undefined) return;
          running++;
          latencies.push(performance.now() - t);
        });
        await s.start();
      }
      console.log(`warming up for ${flags.warmup} s, then measuring for ${flags.seconds} s`);
      await new Promise((r) => setTimeout(r, flags.warmup * 1000));
      measuring = true;
      const t0 = performance.now();
      const memory: number[] = [];
      const sampler = setInterval(() => memory.push(residentMb(child.pid!)), 1000);
      await new Promise((r) => setTimeout(r, flags.seconds * 1000));
      measuring = false;
      clearInterval(sampler);
      const elapsed = (performance.now() - t0) / 1000;
      latencies.sort((a, b) => a - b);
      const result = {
        bench: 'e2e',
        agents: flags.agents,
        frameworks: flags.frameworks,
        seconds: Math.round(elapsed * 10) / 10,
        launchesPerSecond: Math.round(running / elapsed),
        offerToRunningP50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
        offerToRunningP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
        controlPlaneRssMb: Math.max(...memory, residentMb(child.pid!)),
      };
      console.log(`node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; database: ${databaseUrl ? 'DATABASE_URL (scratch database)' : 'embedded'}`);
      console.log(`task launches per second (RUNNING, persisted): ${result.launchesPerSecond}`);
      console.log(`offer to RUNNING latency: p50 ${result.offerToRunningP50Ms} ms, p99 ${result.offerToRunningP99Ms} ms`);
      console.log(`control plane resident memory (max): ${result.controlPlaneRssMb} MB`);
      console.log(JSON.stringify(result));
    } finally {
      for (const s of schedulers) s.close();
      for (const s of sockets) s.disconnect();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  };
  try {
    if (process.env.DATABASE_URL) await cp.withScratchDatabase(process.env.DATABASE_URL, (u) => run(u));
    else await run(undefined);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
