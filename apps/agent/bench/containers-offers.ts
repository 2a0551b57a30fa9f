/**
 * `npm run bench:containers:offers`: offer-to-RUNNING for image tasks, measured on one path
 * through every part: `arbiter control-plane` (a child process on an embedded PostgreSQL of its
 * own, in this run's scratch directory), one real agent in this process
 * (root and runc needed; the image from a warm local store, test/support/busybox-image.ts), and a
 * framework on the scheduler SDK. For each task: from the offer reaching the framework to its
 * RUNNING reaching the framework (the accept, the launch, runc's start of the container's process,
 * the update persisted and relayed). Sequential launches (one task per offer), then 50 launched
 * on one offer at once: all must reach RUNNING, then FINISHED, none FAILED. Prints one JSON line.
 * `BENCH_FETCH=1` compares tasks carrying one cached URI with the same tasks without (compareFetch);
 * `BENCH_PLAIN=1` runs plain tasks (no image) instead of image tasks.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { FetchUri, TaskSpec } from '@arbiter/contracts';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import pino from 'pino';
import { Agent } from '../src/agent';
import { BusyboxProvisioner } from '../test/support/busybox-image';
import { percentile, runBench, waitFor } from './support';

const FETCH = process.env.BENCH_FETCH === '1';
const SEQUENTIAL = Number(process.env.BENCH_TASKS ?? (FETCH ? 25 : 100));
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? (FETCH ? 20 : 50));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
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
  if (agent.capabilities.imagesProblem && process.env.BENCH_PLAIN !== '1')
    throw new Error(`images are off here: ${agent.capabilities.imagesProblem}`);
  agent.start();

  const plain = process.env.BENCH_PLAIN === '1';
  const task = (taskId: string, uris: FetchUri[] = []): TaskSpec => ({
    taskId,
    name: 'bench',
    // A fetched task looks for one of the archive's files (in its sandbox, where it runs).
    command: { shell: uris.length ? 'test -f payload-0.bin' : 'true' },
    ...(plain ? {} : { container: { type: 'MESOS' as const, image: { name: 'busybox' } } }),
    ...(uris.length ? { uris } : {}),
    resources: [
      { name: 'cpus', value: 0.1 },
      { name: 'mem', value: 32 },
    ],
  });
  const offeredAt = new Map<string, number>();
  const running = new Map<string, number>();
  const starting = new Map<string, number>();
  const endedAt = new Map<string, number>();
  const ended = new Map<string, string>();
  // What to launch on the next offer: one task at a time, then a batch at once.
  let pending: TaskSpec[] = [];
  const scheduler = new Scheduler({ master: cp.url, token: TOKEN, framework: { name: 'bench-containers', roles: ['bench'] } });
  scheduler.on('offers', (offers: Offer[]) => {
    const at = performance.now();
    const [offer, ...rest] = offers;
    if (rest.length) void scheduler.decline(rest.map((o) => o.id)).catch(() => undefined);
    if (!pending.length) return void scheduler.decline([offer.id], { refuseSeconds: 0 }).catch(() => undefined);
    const specs = pending;
    pending = [];
    for (const t of specs) offeredAt.set(t.taskId, at);
    scheduler.launch(offer, specs, { refuseSeconds: 0 }).catch((e: unknown) => {
      for (const t of specs) ended.set(t.taskId, `launch refused: ${(e as Error).message}`);
    });
  });
  scheduler.on('update', (u: StatusUpdate) => {
    if (u.state === 'STARTING' && !starting.has(u.taskId)) starting.set(u.taskId, performance.now());
    if (u.state === 'RUNNING' && !running.has(u.taskId)) running.set(u.taskId, performance.now());
    if (['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR', 'DROPPED'].includes(u.state) && !ended.has(u.taskId)) {
      ended.set(u.taskId, u.state);
      endedAt.set(u.taskId, performance.now());
    }
  });
  await scheduler.start();

  /** Offer-to-RUNNING (and to STARTING) of `n` tasks launched one after the other (each ended before the next). */
  const sequential = async (prefix: string, n: number, uris?: FetchUri[]): Promise<Timings> => {
    const [toRunning, toStarting]: number[][] = [[], []];
    for (let i = 0; i < n; i++) {
      const id = `${prefix}-${i}`;
      pending = [task(id, uris)];
      await waitFor(() => ended.has(id), `${id} to end`);
      if (ended.get(id) !== 'FINISHED') throw new Error(`${id} ended ${ended.get(id)}`);
      toRunning.push((running.get(id) ?? NaN) - (offeredAt.get(id) ?? NaN));
      toStarting.push((starting.get(id) ?? NaN) - (offeredAt.get(id) ?? NaN));
    }
    return { toRunning, toStarting };
  };
  /** `n` tasks on one offer: from the offer until all are RUNNING, and those that did not finish. */
  const together = async (prefix: string, n: number, uris?: FetchUri[]): Promise<{ ms: number; failed: number }> => {
    const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
    pending = ids.map((id) => task(id, uris));
    await waitFor(() => ids.every((id) => offeredAt.has(id)), 'an offer for the batch');
    const t0 = offeredAt.get(ids[0]) ?? NaN;
    await waitFor(() => ids.every((id) => running.has(id) || ended.has(id)), 'the batch to run');
    // A task whose RUNNING did not reach the framework (it ended first) counts by its end's arrival.
    const ms = Math.max(...ids.map((id) => running.get(id) ?? endedAt.get(id) ?? NaN)) - t0;
    await waitFor(() => ids.every((id) => ended.has(id)), 'the batch to end');
    return { ms, failed: ids.filter((id) => ended.get(id) !== 'FINISHED').length };
  };

  let failed: number;
  if (FETCH) failed = await compareFetch(dir, { sequential, together });
  else {
    const { toRunning } = await sequential('seq', SEQUENTIAL);
    const batch = await together('con', CONCURRENT);
    failed = batch.failed;
    console.log(
      JSON.stringify({
        bench: 'containers-offers',
        runtime: agent.capabilities.runtime,
        sequential: SEQUENTIAL,
        offerToRunningMs: { p50: percentile(toRunning, 50), p99: percentile(toRunning, 99) },
        concurrent: CONCURRENT,
        concurrentOfferToAllRunningMs: Math.round(batch.ms),
        concurrentFailed: batch.failed,
      }),
    );
  }
  scheduler.close();
  await agent.stop();
  await cp.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  if (failed) process.exitCode = 1;
}

interface Timings {
  toRunning: number[];
  /** Offer to STARTING: a task with URIs is STARTING once they are fetched. */
  toStarting: number[];
}

interface Launches {
  sequential(prefix: string, n: number, uris?: FetchUri[]): Promise<Timings>;
  together(prefix: string, n: number, uris?: FetchUri[]): Promise<{ ms: number; failed: number }>;
}

/**
 * `BENCH_FETCH=1`: the same tasks with and without one URI each (`cache: true`, `extract: true`:
 * a tar.gz of a few hundred KB from a local HTTP server), in alternating rounds of
 * `BENCH_TASKS` sequential launches and `BENCH_CONCURRENT` on one offer. The first fetch (the
 * cache cold: a download) is reported alone. Returns how many tasks did not finish.
 */
async function compareFetch(dir: string, launches: Launches): Promise<number> {
  const served = await archiveServer(dir);
  const uris: FetchUri[] = [{ value: served.url, cache: true, extract: true }];
  try {
    const [cold] = (await launches.sequential('cold', 1, uris)).toRunning;
    const runs = {
      plain: { toRunning: [] as number[], toStarting: [] as number[], perSecond: [] as number[] },
      cached: { toRunning: [] as number[], toStarting: [] as number[], perSecond: [] as number[] },
    };
    let failed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so that neither always follows the other.
      const order = round % 2 ? (['cached', 'plain'] as const) : (['plain', 'cached'] as const);
      for (const kind of order) {
        const with_ = kind === 'cached' ? uris : undefined;
        const timings = await launches.sequential(`${kind}-${round}`, SEQUENTIAL, with_);
        runs[kind].toRunning.push(...timings.toRunning);
        runs[kind].toStarting.push(...timings.toStarting);
        const batch = await launches.together(`${kind}-batch-${round}`, CONCURRENT, with_);
        runs[kind].perSecond.push(CONCURRENT / (batch.ms / 1000));
        failed += batch.failed;
      }
    }
    const figures = (r: Timings & { perSecond: number[] }) => ({
      offerToRunningMs: { p50: percentile(r.toRunning, 50), p99: percentile(r.toRunning, 99) },
      offerToStartingMs: { p50: percentile(r.toStarting, 50), p99: percentile(r.toStarting, 99) },
      launchesPerSecond: r.perSecond.map((x) => Math.round(x * 10) / 10),
    });
    const [p, c] = [figures(runs.plain), figures(runs.cached)];
    console.log(
      JSON.stringify({
        bench: 'containers-offers-fetch',
        tasks: process.env.BENCH_PLAIN === '1' ? 'plain' : 'image',
        archiveBytes: served.bytes,
        rounds: ROUNDS,
        sequentialPerRound: SEQUENTIAL,
        concurrentPerRound: CONCURRENT,
        coldFetchOfferToRunningMs: Math.round(cold * 10) / 10,
        plain: p,
        cached: c,
        cachedOverPlain: {
          p50: Math.round((c.offerToRunningMs.p50 / p.offerToRunningMs.p50) * 100) / 100,
          p99: Math.round((c.offerToRunningMs.p99 / p.offerToRunningMs.p99) * 100) / 100,
        },
        downloads: served.requests(),
      }),
    );
    return failed;
  } finally {
    await served.close();
  }
}

/** A tar.gz of a few hundred KB (incompressible files) served on 127.0.0.1; counts its requests. */
async function archiveServer(dir: string): Promise<{ url: string; bytes: number; requests: () => number; close: () => Promise<void> }> {
  const payload = path.join(dir, 'payload');
  fs.mkdirSync(payload);
  for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(payload, `payload-${i}.bin`), randomBytes(40 * 1024));
  const archive = path.join(dir, 'payload.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', payload, '.']);
  const bytes = fs.statSync(archive).size;
  let requests = 0;
  const server = http.createServer((_, res) => {
    requests++;
    res.writeHead(200, { 'content-length': bytes, 'content-type': 'application/gzip' });
    fs.createReadStream(archive).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/payload.tar.gz`,
    bytes,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

runBench(main);
