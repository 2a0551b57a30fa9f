/**
 * `npm run bench:agent-churn`: many short tasks through one real agent (the tests'
 * FakeControlPlane acknowledges every update), to show that what the agent keeps stays bounded.
 * BENCH_TASKS tasks (default 10,000) running `true`, BENCH_CONCURRENT at a time (default 20).
 * After every tenth of them, with a garbage collection of the heap first: the agent process's
 * heap and resident memory, the tasks it still holds in memory, the update journal's files, and
 * the work directory's size on disk (sandboxes and records). With `BENCH_GC_DELAY_MS` (default 0)
 * the agent's GC removes ended tasks' sandboxes that much after their end (it sweeps every
 * second here); unset to `week` for Mesos's default delay, under which sandboxes accumulate
 * until the delay or the disk headroom takes them. Prints one JSON line per tenth, then a summary.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { Agent } from '../src/agent';
import { FakeControlPlane, launchOf } from '../test/support/fake-control-plane';
import { runBench, waitFor } from './support';

const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 20);
const GC_DELAY = process.env.BENCH_GC_DELAY_MS === 'week' ? 7 * 24 * 3600 * 1000 : Number(process.env.BENCH_GC_DELAY_MS ?? 0);

setFlagsFromString('--expose-gc');
const collectHeap = runInNewContext('gc') as () => void;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Bytes used on disk under `dir` (du), 0 when it is gone. */
function diskUse(dir: string): number {
  try {
    return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync('/var/tmp/arbiter-bench-churn-');
  fs.chmodSync(dir, 0o711);
  const work = path.join(dir, 'work');
  const cp = await FakeControlPlane.start();
  const agent = new Agent({
    master: cp.url,
    token: 'unused',
    hostname: 'churn',
    resources: [{ name: 'cpus', value: 64 }],
    attributes: {},
    workDir: work,
    logger: pino({ level: 'silent' }),
    tasks: { diskCheckIntervalMs: 0 },
    gc: { delayMs: GC_DELAY, intervalMs: 1000, diskHeadroom: 0 },
  });
  agent.start();
  await waitFor(() => cp.registered, 'the agent to register');
  const ended = new Set<string>();
  let [seen, failed] = [0, 0];
  const watch = setInterval(() => {
    for (; seen < cp.statuses.length; seen++) {
      const u = cp.statuses[seen];
      if (['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR'].includes(u.state)) ended.add(u.taskId);
      if (u.state !== 'FINISHED' && ended.has(u.taskId)) failed++;
    }
    // The fake control plane keeps every update it was sent: only the agent's side is measured.
    if (seen > 10_000) {
      cp.statuses.splice(0, seen);
      seen = 0;
    }
  }, 1);
  const started = performance.now();
  const rows: Array<Record<string, number>> = [];
  let launched = 0;
  for (let tenth = 1; tenth <= 10; tenth++) {
    const upTo = Math.round((TASKS * tenth) / 10);
    while (launched < upTo) {
      while (launched - ended.size >= CONCURRENT) await new Promise((resolve) => setTimeout(resolve, 1));
      cp.launch(launchOf(`t-${launched++}`, 'true'));
    }
    await waitFor(() => ended.size >= upTo, 'the tasks to end', 600_000);
    // Their ends acknowledged and out of memory, the GC past its delay.
    await waitFor(() => agent.tasks.live().length === 0, 'the ends acknowledged', 60_000);
    if (GC_DELAY === 0) await waitFor(() => agent.tasks.collectable().length === 0, 'the GC to sweep', 60_000);
    collectHeap();
    const mem = process.memoryUsage();
    const row = {
      tasks: upTo,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      heapMb: mb(mem.heapUsed),
      rssMb: mb(mem.rss),
      liveTasks: agent.tasks.live().length,
      journalFiles: fs.readdirSync(path.join(work, 'updates')).length,
      workDirMb: mb(diskUse(work)),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  clearInterval(watch);
  const [first, last] = [rows[0], rows[rows.length - 1]];
  console.log(
    JSON.stringify({
      bench: 'agent-churn',
      tasks: TASKS,
      concurrent: CONCURRENT,
      gcDelayMs: GC_DELAY,
      tasksPerSecond: Math.round(TASKS / last.seconds),
      heapMb: { afterFirstTenth: first.heapMb, atEnd: last.heapMb },
      rssMb: { afterFirstTenth: first.rssMb, atEnd: last.rssMb },
      workDirMb: { afterFirstTenth: first.workDirMb, atEnd: last.workDirMb },
      journalFilesAtEnd: last.journalFiles,
      failed,
    }),
  );
  await agent.stop();
  await cp.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

runBench(main);
