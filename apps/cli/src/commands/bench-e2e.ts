/**
 * `arbiter bench e2e`: the whole loop under load. A control plane (child process, on
 * DATABASE_URL's server in a scratch database, or on an embedded server) receives N simulated
 * agents (real socket.io connections from this process, each answering a launch with STARTING
 * and RUNNING, then FINISHED after --task-ms) and M frameworks on the scheduler SDK that launch
 * short tasks on every offer. Prints task launches per second sustained (tasks reaching
 * RUNNING, every state persisted), offer-to-RUNNING latency p50/p99 and the control plane's
 * resident memory, then one JSON line. With `--executor`, every task names its framework's
 * executor (one per framework and agent, its own resources taken with its first task there and
 * kept: the agents never report it exited), so launches go through the control plane's executor
 * path (the executor registry and its accounting) onto long-lived executors. With `--flood`, hostile clients join in the second half
 * of the measurement (bench-flood.ts).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Reply } from '@arbiter/contracts';
import { type FloodFlags, floodPhase } from './bench-flood';
import { followOperatorStream, streamLag } from './bench-operator-stream';
import { cpuSeconds, loopHold, percentile, residentMb, scrape, sliceCounts, startChildControlPlane, stopChild } from './bench-process';

interface E2eFlags {
  agents: number;
  frameworks: number;
  seconds: number;
  warmup: number;
  taskMs: number;
  /**
   * Tasks submitted per second across the frameworks (each framework launches only tasks
   * submitted to it and declines offers it has no work for); 0: every offer is used whole.
   */
  rate: number;
  /** The control plane's allocation interval, in seconds. */
  allocationInterval: number;
  /** Tasks name a long-lived executor (one per framework and agent) instead of a command. */
  executor?: boolean;
  /** Hostile clients in the second half of the measurement. */
  flood?: FloodFlags;
  /** A monitor on Mesos's operator API SUBSCRIBE stream beside the run (bench-operator-stream.ts). */
  operatorStream?: boolean;
  /** The control plane's modules file (ARBITER_MODULES of the child). */
  modules?: string;
  /** A modules file whose agent hooks the simulated agents run (container-start before STARTING, as an agent does). */
  agentModules?: string;
}

/** The executor's own resources in `--executor` mode, taken once per framework and agent. */
const EXECUTOR_NEEDS = { cpus: 0.5, mem: 64 };

const TOKEN = `bench-${randomUUID()}`;
/** How long a simulated agent waits for its registration to be answered. */
const REGISTER_TIMEOUT_MS = 60_000;

export async function runE2eBench(flags: E2eFlags): Promise<void> {
  const { io } = await import('socket.io-client');
  const { Scheduler } = await import('@arbiter/scheduler-sdk');
  const cp = await import('@arbiter/control-plane');
  const { loadModules, readModulesFile } = await import('@arbiter/modules');
  const agentHooks = flags.agentModules ? (await loadModules(readModulesFile(flags.agentModules), { host: 'agent' })).hooks : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-e2e-'));
  // Its agents' tasks run as another user, who must reach their sandboxes in here.
  fs.chmodSync(dataDir, 0o711);
  const run = async (databaseUrl: string | undefined) => {
    const { child, pid, url } = await startChildControlPlane(databaseUrl, {
      ARBITER_ADMIN_TOKEN: TOKEN,
      ARBITER_DATA_DIR: dataDir,
      ARBITER_ALLOCATION_INTERVAL: String(flags.allocationInterval),
      ARBITER_AGENT_TIMEOUT: '60',
      // Every framework of the bench is the admin's.
      ARBITER_MAX_FRAMEWORKS_PER_PRINCIPAL: String(Math.max(100, flags.frameworks)),
      ...(flags.modules ? { ARBITER_MODULES: path.resolve(flags.modules) } : {}),
    });
    const sockets: Array<ReturnType<typeof io>> = [];
    const schedulers: Array<import('@arbiter/scheduler-sdk').Scheduler> = [];
    const timers: NodeJS.Timeout[] = [];
    // Once set, failures are expected (pending calls fail with the disconnection) and ignored.
    let closing = false;
    const failures = new Map<string, number>();
    let firstFailure: string | undefined;
    const failure = (what: string, thrown: unknown) => {
      if (closing) return;
      const err = thrown instanceof Error ? thrown : new Error(String(thrown));
      const key = `${what}: ${(err as Error & { code?: string }).code ?? err.message}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
      firstFailure ??= `${what}: ${err.message}`;
    };
    // When each task's launch reached its agent and its STARTING and RUNNING were acknowledged.
    const marks = new Map<string, { launch: number; starting?: number; running?: number }>();
    try {
      // Simulated agents: real connections, registering and answering launches like an agent
      // (each task's updates in order, the next one sent once the previous is acknowledged).
      const agentReady: Array<Promise<void>> = [];
      for (let i = 0; i < flags.agents; i++) {
        const s = io(`${url}/agents`, { auth: { token: TOKEN }, transports: ['websocket'], forceNew: true, reconnection: false });
        sockets.push(s);
        let agentId = '';
        const status = async (frameworkId: string, taskId: string, state: string) => {
          const reply = (await s.emitWithAck('status', {
            updateUuid: randomUUID(),
            frameworkId,
            taskId,
            agentId,
            state,
            timestamp: new Date().toISOString(),
            source: 'SOURCE_AGENT',
          })) as Reply;
          if (!reply.ok) throw new Error(`status ${state} of ${taskId} refused: ${reply.error.code} ${reply.error.message}`);
        };
        // A launch handler never rejects: failures are counted.
        s.on('launch', (m: { frameworkId: string; task: { taskId: string } }) => {
          const mark: { launch: number; starting?: number; running?: number } = { launch: performance.now() };
          marks.set(m.task.taskId, mark);
          void (async () => {
            const sandbox = path.join(dataDir, m.task.taskId);
            if (agentHooks)
              await agentHooks.start('agent:container-start', { agentId, frameworkId: m.frameworkId, sandbox, environment: {} });
            await status(m.frameworkId, m.task.taskId, 'STARTING');
            mark.starting = performance.now();
            await status(m.frameworkId, m.task.taskId, 'RUNNING');
            mark.running = performance.now();
            await new Promise((r) => setTimeout(r, flags.taskMs));
            if (!closing) await status(m.frameworkId, m.task.taskId, 'FINISHED');
          })().catch((err: unknown) => failure('agent status update', err));
        });
        agentReady.push(
          new Promise<void>((resolve, reject) => {
            s.once('connect', () => {
              s.timeout(REGISTER_TIMEOUT_MS)
                .emitWithAck('register', {
                  hostname: `sim-${i}`,
                  resources: [
                    { name: 'cpus', value: 8 },
                    { name: 'mem', value: 16384 },
                  ],
                  attributes: {},
                  tasks: [],
                })
                .then((reply: Reply<{ agentId: string }>) => {
                  if (!reply.ok) throw new Error(`agent sim-${i} could not register: ${reply.error.code} ${reply.error.message}`);
                  agentId = reply.agentId;
                  const beat = setInterval(() => s.emit('heartbeat', {}), 5000);
                  beat.unref();
                  timers.push(beat);
                  resolve();
                })
                .catch(reject);
            });
            s.once('connect_error', reject);
          }),
        );
      }
      await Promise.all(agentReady);
      console.log(`${flags.agents} simulated agents registered; starting ${flags.frameworks} frameworks`);

      const latencies: number[] = [];
      // Where the time goes: offer to launch at the agent, to STARTING and to RUNNING recorded
      // (acknowledged to the agent), to RUNNING at the framework.
      const stages: Record<'toLaunch' | 'toStarting' | 'toRunning' | 'toFramework', number[]> = {
        toLaunch: [],
        toStarting: [],
        toRunning: [],
        toFramework: [],
      };
      let running = 0;
      let measuring = false;
      const launchedAt = new Map<string, number>();
      const need = { cpus: 1, mem: 128 };
      // With --rate, tasks are submitted to the frameworks in turn at that rate and wait in
      // their backlog for an offer (offer-to-RUNNING latency starts when the offer arrives).
      const backlog = new Array<number>(flags.frameworks).fill(0);
      let submitted = 0;
      const submit = () => {
        const due = Math.floor(((performance.now() - submitStart) / 1000) * flags.rate);
        for (; submitted < due; submitted++) backlog[submitted % flags.frameworks]++;
      };
      let submitStart = 0;
      for (let f = 0; f < flags.frameworks; f++) {
        const s = new Scheduler({ master: url, token: TOKEN, framework: { name: `bench-${f}`, roles: [`bench-${f % 5}`] } });
        schedulers.push(s);
        let n = 0;
        /** Agents this framework's executor was launched on (--executor). */
        const withExecutor = new Set<string>();
        const executor = {
          executorId: `bench-${f}`,
          type: 'CUSTOM' as const,
          command: { shell: 'true' },
          resources: Object.entries(EXECUTOR_NEEDS).map(([name, value]) => ({ name, value })),
        };
        s.on('error', (err) => failure('scheduler', err));
        s.on('offers', (offers) => {
          const received = performance.now();
          // Offers it cannot use go back together: too small ones at once, the rest (no work
          // for them) with the SDK's default filter.
          const tooSmall: string[] = [];
          const unused: string[] = [];
          for (const offer of offers) {
            // The executor's own resources come out of the first offer of each agent.
            const first = flags.executor === true && !withExecutor.has(offer.agentId);
            const cpus = (offer.resources.find((r) => r.name === 'cpus')?.value ?? 0) - (first ? EXECUTOR_NEEDS.cpus : 0);
            const mem = (offer.resources.find((r) => r.name === 'mem')?.value ?? 0) - (first ? EXECUTOR_NEEDS.mem : 0);
            const fits = Math.max(0, Math.min(Math.floor(cpus / need.cpus), Math.floor(mem / need.mem)));
            const count = flags.rate ? Math.min(fits, backlog[f]) : fits;
            if (count === 0) {
              (fits === 0 ? tooSmall : unused).push(offer.id);
              continue;
            }
            backlog[f] -= count;
            if (flags.executor) withExecutor.add(offer.agentId);
            const tasks = Array.from({ length: count }, () => {
              const taskId = `t${f}-${n++}`;
              launchedAt.set(taskId, received);
              return {
                taskId,
                name: 'bench',
                ...(flags.executor ? { executor } : { command: { shell: 'true' } }),
                resources: [
                  { name: 'cpus', value: need.cpus },
                  { name: 'mem', value: need.mem },
                ],
              };
            });
            s.launch(offer, tasks, { refuseSeconds: 0 }).catch((err: unknown) => {
              for (const t of tasks) launchedAt.delete(t.taskId);
              if (first) withExecutor.delete(offer.agentId);
              failure('accept', err);
            });
          }
          if (tooSmall.length) s.decline(tooSmall, { refuseSeconds: 0 }).catch((err: unknown) => failure('decline', err));
          if (unused.length) s.decline(unused).catch((err: unknown) => failure('decline', err));
        });
        s.on('update', (u) => {
          if (u.state !== 'RUNNING') return;
          const t = launchedAt.get(u.taskId);
          launchedAt.delete(u.taskId);
          const mark = marks.get(u.taskId);
          marks.delete(u.taskId);
          if (!measuring || t === undefined) return;
          const now = performance.now();
          if (stream) frameworkSaw.set(u.taskId, now);
          running++;
          latencies.push(now - t);
          if (mark?.starting !== undefined && mark.running !== undefined) {
            stages.toLaunch.push(mark.launch - t);
            stages.toStarting.push(mark.starting - mark.launch);
            stages.toRunning.push(mark.running - mark.starting);
            stages.toFramework.push(now - mark.running);
          }
        });
      }
      const stream = flags.operatorStream ? followOperatorStream(url, TOKEN) : undefined;
      const frameworkSaw = new Map<string, number>();
      await stream?.subscribed;
      // Every framework subscribes at once; a refused or unanswered subscription ends the run.
      await Promise.all(schedulers.map((s) => s.start()));
      if (flags.rate) {
        submitStart = performance.now();
        const submitter = setInterval(submit, 10);
        timers.push(submitter);
      }
      console.log(
        `warming up for ${flags.warmup} s, then measuring for ${flags.seconds} s (allocation every ${flags.allocationInterval} s)`,
      );
      await new Promise((r) => setTimeout(r, flags.warmup * 1000));
      measuring = true;
      const t0 = performance.now();
      const cpu0 = cpuSeconds(pid);
      const base = new URL(url);
      // A scrape resets the control plane's event loop lag readings: the next one covers the run.
      const slices0 = sliceCounts(await scrape(base, TOKEN));
      // This process plays every agent and framework: a late event loop here shows in every latency.
      const benchLoop = monitorEventLoopDelay({ resolution: 10 });
      benchLoop.enable();
      const benchCpu0 = process.cpuUsage();
      const memory: number[] = [];
      const sampler = setInterval(() => memory.push(residentMb(pid)), 1000);
      timers.push(sampler);
      const flooded = flags.flood ? floodPhase(url, TOKEN, flags.seconds, flags.flood) : undefined;
      await new Promise((r) => setTimeout(r, flags.seconds * 1000));
      const floodResult = await flooded;
      measuring = false;
      // What the stream has not shown yet after a second more is missed.
      if (stream) await new Promise((r) => setTimeout(r, 1000));
      const operatorStream = stream ? streamLag(frameworkSaw, stream) : undefined;
      stream?.close();
      const after = await scrape(base, TOKEN);
      const hold = loopHold(slices0, sliceCounts(after));
      const lagMaxMs = Math.round(after('arbiter_nodejs_eventloop_lag_max_seconds') * 10_000) / 10;
      benchLoop.disable();
      clearInterval(sampler);
      const elapsed = (performance.now() - t0) / 1000;
      const controlPlaneCpu = (cpuSeconds(pid) - cpu0) / elapsed;
      latencies.sort((a, b) => a - b);
      for (const v of Object.values(stages)) v.sort((a, b) => a - b);
      const stagePercentile = (p: number) =>
        Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, Math.round(percentile(v, p) * 10) / 10])) as Record<
          keyof typeof stages,
          number
        >;
      const result = {
        bench: 'e2e',
        mode: flags.executor ? 'executor' : 'command',
        agents: flags.agents,
        frameworks: flags.frameworks,
        seconds: Math.round(elapsed * 10) / 10,
        launchesPerSecond: Math.round(running / elapsed),
        offerToRunningP50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
        offerToRunningP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
        stagesP50Ms: stagePercentile(50),
        stagesP99Ms: stagePercentile(99),
        controlPlaneRssMb: Math.max(...memory, residentMb(pid)),
        controlPlaneCpuPercent: Math.round(controlPlaneCpu * 100),
        benchCpuPercent: Math.round(((u) => (u.user + u.system) / 1e4 / elapsed)(process.cpuUsage(benchCpu0))),
        benchEventLoopDelayP99Ms: Math.round(benchLoop.percentile(99) / 1e5) / 10,
        allocationIntervalSeconds: flags.allocationInterval,
        cycleSlices: hold,
        controlPlaneEventLoopLagMaxMs: lagMaxMs,
        ...(flags.rate ? { rate: flags.rate, backlogAtEnd: backlog.reduce((a, b) => a + b, 0) } : {}),
        failures: Object.fromEntries(failures),
        ...(floodResult ? { flood: floodResult } : {}),
        ...(operatorStream ? { operatorStream } : {}),
      };
      console.log(
        `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}; database: ${databaseUrl ? 'DATABASE_URL (scratch database)' : 'embedded'}`,
      );
      console.log(
        `task launches per second (RUNNING, persisted${flags.executor ? ', onto long-lived executors' : ''}): ${result.launchesPerSecond}${flags.rate ? ` of ${flags.rate} submitted per second; ${result.backlogAtEnd} tasks waiting for offers at the end` : ' (every offer used)'}`,
      );
      console.log(`offer to RUNNING latency: p50 ${result.offerToRunningP50Ms} ms, p99 ${result.offerToRunningP99Ms} ms`);
      for (const [p, by] of [
        ['p50', result.stagesP50Ms],
        ['p99', result.stagesP99Ms],
      ] as const) {
        console.log(
          `  ${p} by stage: offer to launch at the agent ${by.toLaunch} ms, to STARTING recorded ${by.toStarting} ms, to RUNNING recorded ${by.toRunning} ms, to RUNNING at the framework ${by.toFramework} ms`,
        );
      }
      console.log(
        `control plane resident memory (max): ${result.controlPlaneRssMb} MB; CPU while measuring: ${result.controlPlaneCpuPercent}% of one core`,
      );
      console.log(
        `allocation cycles held the control plane's event loop in ${hold.slices} slices: ${hold.over2ms} longer than 2 ms, ${hold.over5ms} longer than 5 ms; its event loop lag max ${lagMaxMs} ms`,
      );
      console.log(
        `this process (agents and frameworks): CPU ${result.benchCpuPercent}% of one core, event loop delay p99 ${result.benchEventLoopDelayP99Ms} ms`,
      );
      if (operatorStream)
        console.log(
          `operator SUBSCRIBE stream behind the frameworks: p50 ${operatorStream.lagP50Ms} ms, p99 ${operatorStream.lagP99Ms} ms (first quarter p50 ${operatorStream.firstQuarterP50Ms} ms, last ${operatorStream.lastQuarterP50Ms} ms); ${operatorStream.missed} of ${operatorStream.tasks} RUNNING never on it`,
        );
      if (failures.size) console.log(`failures (first: ${firstFailure}): ${[...failures].map(([k, n]) => `${k} x${n}`).join('; ')}`);
      console.log(JSON.stringify(result));
    } finally {
      closing = true;
      for (const t of timers) clearInterval(t);
      for (const s of schedulers) s.close();
      for (const s of sockets) s.disconnect();
      await stopChild(child, 'SIGTERM');
    }
  };
  try {
    if (process.env.DATABASE_URL) await cp.withScratchDatabase(process.env.DATABASE_URL, (u) => run(u));
    else await run(undefined);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
