/**
 * `arbiter bench allocator`: runs the allocator benchmark shapes (libs/allocator/bench), prints
 * a table and then one JSON line per run:
 * {"shape", "agents", "frameworks", "roles", "cycles", "medianMs", "p95Ms", "offerMedianMs",
 * "filteredMedianMs"} (the last two: the median over cycles that made offers, and over cycles
 * that made none; null when there were no such cycles). `--check` instead runs the allocator's
 * reference path and its fast path side by side and fails if their offers differ;
 * `--reference` times the reference path.
 */
import * as os from 'node:os';
import type { Command } from 'commander';
import { checkShape, percentile, runFragmentation, SHAPES, type ShapeOptions } from '@arbiter/allocator/bench';
import { runApiBench } from './bench-api';
import { runDashboardBench } from './bench-dashboard';
import { runE2eBench } from './bench-e2e';
import { policiesFrom } from './simulate';
import { FAILOVER_FAULTS, type FailoverFault, runFailoverBench } from './bench-failover';

interface BenchFlags {
  shape?: string;
  agents?: string;
  frameworks?: string;
  roles?: string;
  cycles?: string;
  check?: boolean;
  reference?: boolean;
  modules?: string;
  agentModules?: string;
  compare?: boolean;
}

/** A flag's positive number: whole unless `seconds` (then any positive number of seconds). */
function positive(value: string | undefined, flag: string, seconds = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(seconds ? Number.isFinite(n) : Number.isInteger(n)) || n <= 0)
    throw new Error(`--${flag} must be a positive ${seconds ? 'number of seconds' : 'whole number'}, got '${value}'`);
  return n;
}

export function register(program: Command): void {
  program
    .command('bench')
    .description('run benchmarks')
    .argument('<suite>', 'benchmark suite: allocator, e2e, api, dashboard, failover')
    .option('--shape <name>', `one shape: ${[...SHAPES.map((s) => s.name), 'fragmentation'].join(', ')}`)
    .option('--agents <n>', 'number of agents')
    .option('--frameworks <n>', 'number of frameworks')
    .option('--roles <n>', 'number of roles')
    .option('--cycles <n>', 'allocation cycles to time')
    .option('--check', 'allocator: run the reference path and the fast path side by side and fail if their offers differ')
    .option('--reference', "allocator: time the allocator's reference path instead of its fast path")
    .option(
      '--modules <file>',
      "allocator: run with the allocator policies (sorter, placement) of a modules file; e2e: the control plane's modules file (docs/modules.md)",
    )
    .option('--compare', 'allocator with --modules: the built-in policies and the modules alternately, three runs each, and their ratio')
    .option('--agent-modules <file>', "e2e: a modules file whose agent hooks the simulated agents run before each task's STARTING")
    .option('--seconds <n>', 'e2e: seconds to measure (default 20); api: seconds per route (default 5)')
    .option('--warmup <n>', 'e2e: seconds before measuring (default 5)')
    .option('--task-ms <n>', 'e2e: how long each simulated task runs (default 200)')
    .option('--rate <n>', 'e2e: tasks submitted per second across the frameworks (default: every offer is used)')
    .option('--allocation-interval <seconds>', "e2e: the control plane's allocation interval (default 0.25)")
    .option('--executor', 'e2e: launch tasks onto long-lived executors (one per framework and agent, started with its first task)')
    .option(
      '--operator-stream',
      "e2e: a monitor on Mesos's operator API SUBSCRIBE stream beside the run: how far behind the frameworks it shows each RUNNING",
    )
    .option('--flood', 'e2e: flood unauthenticated 1 MB bodies and slow sockets in the second half of the measurement')
    .option('--flood-bodies <n>', 'e2e --flood: clients sending unauthenticated 1 MB bodies (default 64)')
    .option('--flood-slow <n>', 'e2e --flood: slow sockets (default 1000)')
    .option('--runs <n>', 'dashboard: cold loads timed per page (default 5)')
    .option('--tasks <n>', 'failover: tasks kept running across the failover (default 1000)')
    .option('--replicas <n>', 'failover: control-plane replicas (default 2)')
    .option('--fault-seconds <n>', 'failover: how long a pause, partition or database outage lasts (default 30)')
    .option('--fault <list>', `failover: the faults to inject, comma-separated: ${FAILOVER_FAULTS.join(', ')} (default all)`)
    .option('--clients <n>', 'api: concurrent clients (default 50)')
    .option('--history-days <n>', 'api: days of allocation history and ended tasks (default 7)')
    .option('--routes <list>', 'api: only the routes whose name holds one of these comma-separated words (e.g. weights,agents)')
    .action(
      async (
        suite: string,
        flags: BenchFlags & {
          seconds?: string;
          warmup?: string;
          taskMs?: string;
          rate?: string;
          allocationInterval?: string;
          runs?: string;
          tasks?: string;
          clients?: string;
          historyDays?: string;
          routes?: string;
          replicas?: string;
          fault?: string;
          flood?: boolean;
          executor?: boolean;
          operatorStream?: boolean;
          floodBodies?: string;
          floodSlow?: string;
          faultSeconds?: string;
        },
      ) => {
        if (suite === 'api') {
          try {
            await runApiBench({
              agents: positive(flags.agents, 'agents') ?? 10_000,
              clients: positive(flags.clients, 'clients') ?? 50,
              seconds: positive(flags.seconds, 'seconds') ?? 5,
              historyDays: positive(flags.historyDays, 'history-days') ?? 7,
              routes: flags.routes
                ?.split(',')
                .map((w) => w.trim())
                .filter(Boolean),
            });
          } catch (err) {
            console.error((err as Error).message);
            process.exitCode = 2;
          }
          return;
        }
        if (suite === 'failover') {
          try {
            const faults = flags.fault?.split(',').map((f) => f.trim());
            const unknown = faults?.filter((f) => !(FAILOVER_FAULTS as readonly string[]).includes(f));
            if (unknown?.length) throw new Error(`--fault: unknown fault(s) ${unknown.join(', ')}; known: ${FAILOVER_FAULTS.join(', ')}`);
            await runFailoverBench({
              agents: positive(flags.agents, 'agents') ?? 1000,
              tasks: positive(flags.tasks, 'tasks') ?? 1000,
              replicas: positive(flags.replicas, 'replicas'),
              faults: faults as FailoverFault[] | undefined,
              faultSeconds: positive(flags.faultSeconds, 'fault-seconds', true),
            });
          } catch (err) {
            console.error((err as Error).message);
            process.exitCode = 2;
          }
          return;
        }
        if (suite === 'dashboard') {
          try {
            await runDashboardBench({ agents: positive(flags.agents, 'agents') ?? 1000, runs: positive(flags.runs, 'runs') ?? 5 });
          } catch (err) {
            console.error((err as Error).message);
            process.exitCode = 2;
          }
          return;
        }
        if (suite === 'e2e') {
          try {
            const e2e = {
              agents: positive(flags.agents, 'agents') ?? 1000,
              frameworks: positive(flags.frameworks, 'frameworks') ?? 50,
              seconds: positive(flags.seconds, 'seconds') ?? 20,
              warmup: positive(flags.warmup, 'warmup') ?? 5,
              taskMs: positive(flags.taskMs, 'task-ms') ?? 200,
              rate: positive(flags.rate, 'rate') ?? 0,
              allocationInterval: positive(flags.allocationInterval, 'allocation-interval', true) ?? 0.25,
              executor: flags.executor === true,
              operatorStream: flags.operatorStream === true,
              ...(flags.modules ? { modules: flags.modules } : {}),
              ...(flags.agentModules ? { agentModules: flags.agentModules } : {}),
              flood:
                flags.flood || flags.floodBodies || flags.floodSlow
                  ? { bodies: positive(flags.floodBodies, 'flood-bodies') ?? 64, slow: positive(flags.floodSlow, 'flood-slow') ?? 1000 }
                  : undefined,
            };
            await runE2eBench(e2e);
          } catch (err) {
            console.error((err as Error).message);
            process.exitCode = 2;
          }
          return;
        }
        if (suite !== 'allocator') {
          console.error(`unknown benchmark suite '${suite}' (known: allocator, e2e, api, dashboard, failover)`);
          process.exitCode = 2;
          return;
        }
        if (flags.shape === 'fragmentation') {
          // Both placements on the same workload (--cycles, default 600), three seeds.
          const cycles = positive(flags.cycles, 'cycles') ?? 600;
          console.log('placement  seed  large placed  large wait (cycles)  small placed  stranded cpu  fairness error');
          const lines: string[] = [];
          for (const seed of [1, 2, 3])
            for (const placement of ['mesos', 'pack'] as const) {
              const r = runFragmentation({ placement, cycles, seed });
              console.log(
                `${placement.padEnd(9)} ${String(seed).padStart(5)} ${`${r.largePlaced}/${r.largeArrived}`.padStart(13)} ${r.largeWaitCycles.toFixed(1).padStart(20)} ${String(r.smallPlaced).padStart(13)} ${r.strandedCpuShare.toFixed(3).padStart(13)} ${r.fairnessError.toFixed(3).padStart(15)}`,
              );
              lines.push(JSON.stringify({ ...r, seed }));
            }
          for (const line of lines) console.log(line);
          return;
        }
        // `--shape hierarchy` runs every depth; `--shape hierarchy-depth-7` just one.
        const shapes = flags.shape ? SHAPES.filter((s) => s.name === flags.shape || s.name.startsWith(`${flags.shape}-`)) : SHAPES;
        if (shapes.length === 0) {
          console.error(`unknown shape '${flags.shape}' (known: ${SHAPES.map((s) => s.name).join(', ')})`);
          process.exitCode = 2;
          return;
        }
        let override: Partial<ShapeOptions>;
        try {
          override = Object.fromEntries(
            (['agents', 'frameworks', 'roles', 'cycles'] as const).flatMap((k) => {
              const v = positive(flags[k], k);
              return v === undefined ? [] : [[k, v]];
            }),
          );
        } catch (err) {
          console.error((err as Error).message);
          process.exitCode = 2;
          return;
        }
        const custom = ['agents', 'frameworks', 'roles', 'cycles'].some((k) => flags[k as keyof BenchFlags] !== undefined);
        const sizesOf = (shape: (typeof shapes)[number]) =>
          custom && flags.shape ? [{ ...shape.sizes[0], ...override }] : shape.sizes.map((s) => ({ ...s, ...override }));
        if (flags.check) {
          for (const shape of shapes) {
            for (const size of sizesOf(shape)) {
              const r = checkShape(shape, size);
              const what = `${r.shape} agents=${size.agents} frameworks=${size.frameworks} roles=${size.roles}`;
              if (r.mismatch) {
                const m = r.mismatch;
                console.error(
                  `CHECK FAILED: ${what}: cycle ${m.cycle}, offer ${m.index}: reference ${m.reference ?? '(none)'}, fast ${m.fast ?? '(none)'}`,
                );
                process.exitCode = 1;
                return;
              }
              console.log(`check ok: ${what}: ${r.cycles} cycles, ${r.offers} offers the same on both paths`);
            }
          }
          return;
        }
        let policies: Awaited<ReturnType<typeof policiesFrom>>;
        try {
          policies = await policiesFrom(flags.modules);
        } catch (err) {
          console.error((err as Error).message);
          process.exitCode = 2;
          return;
        }
        const { names: modules, ...allocatorPolicies } = policies;
        console.log(
          `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB${modules.length ? `, modules: ${modules.join('; ')}` : ''}`,
        );
        if (flags.compare) {
          // Built-in and module policies alternately in one process, so both see the same load.
          if (!modules.length) throw new Error('--compare needs --modules');
          for (const shape of shapes)
            for (const size of sizesOf(shape)) {
              const runs = { builtin: [] as number[], module: [] as number[] };
              for (let i = 0; i < 3; i++) {
                runs.builtin.push(percentile(shape.run(size).cycleMs, 50));
                runs.module.push(percentile(shape.run(size, allocatorPolicies).cycleMs, 50));
              }
              const [builtinMs, moduleMs] = [percentile(runs.builtin, 50), percentile(runs.module, 50)];
              const line = { shape: shape.name, ...size, builtinMedianMs: +builtinMs.toFixed(2), moduleMedianMs: +moduleMs.toFixed(2) };
              console.log(JSON.stringify({ ...line, ratio: +(moduleMs / builtinMs).toFixed(3), modules, runs }));
            }
          return;
        }
        console.log('shape                 agents  frameworks  roles  cycles  median ms  p95 ms  set-up ms  offers/cycle');
        const lines: string[] = [];
        for (const shape of shapes) {
          for (const size of sizesOf(shape)) {
            const r = shape.run(size, { referencePath: !!flags.reference, ...allocatorPolicies });
            const medianMs = +percentile(r.cycleMs, 50).toFixed(2);
            const p95Ms = +percentile(r.cycleMs, 95).toFixed(2);
            const medianOf = (ms: number[]) => (ms.length === 0 ? null : +percentile(ms, 50).toFixed(2));
            const offerMedianMs = medianOf(r.cycleMs.filter((_, i) => r.offers[i] > 0));
            const filteredMedianMs = medianOf(r.cycleMs.filter((_, i) => r.offers[i] === 0));
            const offers = Math.round(r.offers.reduce((a, b) => a + b, 0) / r.offers.length);
            console.log(
              `${r.shape.padEnd(20)} ${String(r.agents).padStart(7)} ${String(r.frameworks).padStart(11)} ${String(r.roles).padStart(6)} ${String(r.cycles).padStart(7)} ${medianMs.toFixed(2).padStart(10)} ${p95Ms.toFixed(2).padStart(7)} ${r.setupMs.toFixed(0).padStart(10)} ${String(offers).padStart(13)}`,
            );
            lines.push(
              JSON.stringify({
                shape: r.shape,
                agents: r.agents,
                frameworks: r.frameworks,
                roles: r.roles,
                cycles: r.cycles,
                medianMs,
                p95Ms,
                offerMedianMs,
                filteredMedianMs,
                ...(flags.reference ? { path: 'reference' } : {}),
                ...(modules.length ? { modules } : {}),
              }),
            );
          }
        }
        for (const line of lines) console.log(line);
      },
    );
}
