/**
 * `npm run bench:containers`: image tasks on one real agent (root and runc needed) against a
 * control plane's /agents namespace (test/support/fake-control-plane.ts), the image from a warm
 * local store (a busybox root filesystem, test/support/busybox-image.ts). Prints, as JSON:
 * launch-to-RUNNING and launch-to-FINISHED (`true` in the image: runc's start, the task and the
 * container's removal) p50/p99 over sequential launches, then 50 concurrent launches (all must
 * reach RUNNING, then FINISHED, none FAILED) and how long they took. The control plane's share
 * of offer-to-RUNNING (accept, launch message) is bench:e2e's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import pino from 'pino';
import { Agent } from '../src/agent';
import { BusyboxProvisioner } from '../test/support/busybox-image';
import { percentile, runBench, waitFor } from './support';
import { FakeControlPlane, launchOf } from '../test/support/fake-control-plane';

const SEQUENTIAL = Number(process.env.BENCH_TASKS ?? 100);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync('/var/tmp/arbiter-bench-containers-');
  fs.chmodSync(dir, 0o711);
  const cp = await FakeControlPlane.start();
  const provisioner = new BusyboxProvisioner(path.join(dir, 'image'));
  const agent = new Agent({
    master: cp.url,
    token: 'unused',
    hostname: 'bench',
    resources: [{ name: 'cpus', value: 64 }],
    attributes: {},
    workDir: path.join(dir, 'work'),
    logger: pino({ level: 'silent' }),
    tasks: { provisioner, diskCheckIntervalMs: 0 },
  });
  if (agent.capabilities.imagesProblem) throw new Error(`images are off here: ${agent.capabilities.imagesProblem}`);
  agent.start();
  await waitFor(() => cp.registered);
  const at = (taskId: string, state: string) => cp.statuses.find((u) => u.taskId === taskId && u.state === state);
  const launch = (taskId: string) => {
    const msg = launchOf(taskId, 'true');
    cp.launch({ ...msg, task: { ...msg.task, container: { type: 'MESOS', image: { name: 'busybox' } } } });
    return performance.now();
  };
  const toRunning: number[] = [];
  const toFinished: number[] = [];
  const seen = new Map<string, { running?: number; finished?: number }>();
  const started = cp.statuses.length;
  const watch = setInterval(() => {
    for (const u of cp.statuses.slice(started)) {
      const t = seen.get(u.taskId) ?? {};
      if (u.state === 'RUNNING') t.running ??= performance.now();
      if (['FINISHED', 'FAILED'].includes(u.state)) t.finished ??= performance.now();
      seen.set(u.taskId, t);
    }
  }, 1);
  for (let i = 0; i < SEQUENTIAL; i++) {
    const id = `seq-${i}`;
    const t0 = launch(id);
    await waitFor(() => seen.get(id)?.finished !== undefined);
    if (!at(id, 'FINISHED')) throw new Error(`${id} did not finish: ${JSON.stringify(cp.last(id))}`);
    toRunning.push((seen.get(id)?.running ?? NaN) - t0);
    toFinished.push((seen.get(id)?.finished ?? NaN) - t0);
  }
  const ids = Array.from({ length: CONCURRENT }, (_, i) => `con-${i}`);
  const t0 = performance.now();
  for (const id of ids) launch(id);
  await waitFor(() => ids.every((id) => seen.get(id)?.running !== undefined));
  const allRunningMs = performance.now() - t0;
  await waitFor(() => ids.every((id) => seen.get(id)?.finished !== undefined));
  const allFinishedMs = performance.now() - t0;
  const failed = ids.filter((id) => !at(id, 'FINISHED'));
  clearInterval(watch);
  await waitFor(
    () => fs.readdirSync(path.join(dir, 'work', 'containers')).filter((n) => !n.startsWith('.')).length === 0,
    'the containers removed',
  );
  console.log(
    JSON.stringify({
      runtime: agent.capabilities.runtime,
      sequential: SEQUENTIAL,
      launchToRunningMs: { p50: percentile(toRunning, 50), p99: percentile(toRunning, 99) },
      launchToFinishedMs: { p50: percentile(toFinished, 50), p99: percentile(toFinished, 99) },
      concurrent: CONCURRENT,
      concurrentAllRunningMs: Math.round(allRunningMs),
      concurrentAllFinishedMs: Math.round(allFinishedMs),
      concurrentFailed: failed.length,
    }),
  );
  await agent.stop();
  await cp.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (failed.length) process.exitCode = 1;
}

runBench(main);
