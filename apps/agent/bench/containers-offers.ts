/**
 * `npm run bench:containers:offers`: offer-to-RUNNING for image tasks, measured on one path
 * through every part: `arbiter control-plane` (a child process on an embedded PostgreSQL of its
 * own, in this run's scratch directory), one real agent in this process
 * (root and runc needed; the image from a warm local store, test/support/busybox-image.ts), and a
 * framework on the scheduler SDK. For each task: from the offer reaching the framework to its
 * RUNNING reaching the framework (the accept, the launch, runc's start of the container's process,
 * the update persisted and relayed). Sequential launches (one task per offer), then 50 launched
 * on one offer at once: all must reach RUNNING, then FINISHED, none FAILED. Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskSpec } from '@arbiter/contracts';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import pino from 'pino';
import { Agent } from '../src/agent';
import { BusyboxProvisioner } from '../test/support/busybox-image';
import { percentile, runBench, waitFor } from './support';

const SEQUENTIAL = Number(process.env.BENCH_TASKS ?? 100);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50);
const BIN = path.resolve(__dirname, '../../cli/bin/arbiter.js');
const TOKEN = `bench-${randomUUID()}`;

/** `arbiter control-plane` on a free port; resolves to its URL once it serves. */
function controlPlane(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'error',
    ARBITER_ADMIN_TOKEN: TOKEN,
    ARBITER_DATA_DIR: dataDir,
    ARBITER_ALLOCATION_INTERVAL: '0.05',
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [BIN, 'control-plane'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /Arbiter control plane on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the control plane exited with ${code}:\n${out}`)));
  });
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync('/var/tmp/arbiter-bench-container-offers-');
  fs.chmodSync(dir, 0o711);
  const cp = await controlPlane(path.join(dir, 'control-plane'));
  const agent = new Agent({
    master: cp.url,
    token: TOKEN,
    hostname: 'bench',
    resources: [
      { name: 'cpus', value: 64 },
      { name: 'mem', value: 65536 },
    ],
    attributes: {},
    workDir: path.join(dir, 'work'),
    logger: pino({ level: 'silent' }),
    tasks: { provisioner: new BusyboxProvisioner(path.join(dir, 'image')), diskCheckIntervalMs: 0 },
  });
  if (agent.capabilities.imagesProblem) throw new Error(`images are off here: ${agent.capabilities.imagesProblem}`);
  agent.start();

  const task = (taskId: string): TaskSpec => ({
    taskId,
    name: 'bench',
    command: { shell: 'true' },
    container: { type: 'MESOS', image: { name: 'busybox' } },
    resources: [
      { name: 'cpus', value: 0.1 },
      { name: 'mem', value: 32 },
    ],
  });
  const offeredAt = new Map<string, number>();
  const running = new Map<string, number>();
  const ended = new Map<string, string>();
  // What to launch on the next offer: one task at a time, then the concurrent batch at once.
  let pending: string[] = [];
  const scheduler = new Scheduler({ master: cp.url, token: TOKEN, framework: { name: 'bench-containers', roles: ['bench'] } });
  scheduler.on('offers', (offers: Offer[]) => {
    const at = performance.now();
    const [offer, ...rest] = offers;
    if (rest.length) void scheduler.decline(rest.map((o) => o.id)).catch(() => undefined);
    if (!pending.length) return void scheduler.decline([offer.id], { refuseSeconds: 0 }).catch(() => undefined);
    const ids = pending;
    pending = [];
    for (const id of ids) offeredAt.set(id, at);
    scheduler.launch(offer, ids.map(task), { refuseSeconds: 0 }).catch((e: unknown) => {
      for (const id of ids) ended.set(id, `launch refused: ${(e as Error).message}`);
    });
  });
  scheduler.on('update', (u: StatusUpdate) => {
    if (u.state === 'RUNNING' && !running.has(u.taskId)) running.set(u.taskId, performance.now());
    if (['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR', 'DROPPED'].includes(u.state)) ended.set(u.taskId, u.state);
  });
  await scheduler.start();

  const toRunning: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const id = `seq-${i}`;
    pending = [id];
    await waitFor(() => ended.has(id), `${id} to end`);
    if (ended.get(id) !== 'FINISHED') throw new Error(`${id} ended ${ended.get(id)}`);
    toRunning.push((running.get(id) ?? NaN) - (offeredAt.get(id) ?? NaN));
  }
  const ids = Array.from({ length: CONCURRENT }, (_, i) => `con-${i}`);
  pending = ids;
  await waitFor(() => ids.every((id) => offeredAt.has(id)), 'an offer for the batch');
  const t0 = offeredAt.get(ids[0]) ?? NaN;
  await waitFor(() => ids.every((id) => running.has(id) || ended.has(id)), 'the batch to run');
  const allRunningMs = Math.max(...ids.map((id) => running.get(id) ?? NaN)) - t0;
  await waitFor(() => ids.every((id) => ended.has(id)), 'the batch to end');
  const failed = ids.filter((id) => ended.get(id) !== 'FINISHED');
  console.log(
    JSON.stringify({
      bench: 'containers-offers',
      runtime: agent.capabilities.runtime,
      sequential: SEQUENTIAL,
      offerToRunningMs: { p50: percentile(toRunning, 50), p99: percentile(toRunning, 99) },
      concurrent: CONCURRENT,
      concurrentOfferToAllRunningMs: Math.round(allRunningMs),
      concurrentFailed: failed.length,
    }),
  );
  scheduler.close();
  await agent.stop();
  await cp.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  if (failed.length) process.exitCode = 1;
}

runBench(main);
