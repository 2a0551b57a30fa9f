/**
 * `arbiter simulate FILE.json [...]`: replays allocator and sorter scenarios and reports, per
 * scenario, pass or fail with expected-versus-actual for each failed expectation.
 * Exit status: 0 all pass, 1 an expectation failed, 2 a file is invalid.
 */
import * as fs from 'node:fs';
import type { Command } from 'commander';
import { describe as describeError } from '../ops/errors';
import { call, type Connection } from './access';
import { runScenario, type ScenarioPolicies, ScenarioValidationError, type ScenarioResult } from '@arbiter/allocator';
import { loadModules, readModulesFile } from '@arbiter/modules';

interface FileReport {
  file: string;
  result?: ScenarioResult;
  error?: { message: string; stepIndex?: number; field?: string };
}

function runFile(file: string, policies: ScenarioPolicies = {}): FileReport {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return {
      file,
      error: { message: err instanceof SyntaxError ? `invalid JSON: ${err.message}` : `cannot read: ${(err as Error).message}` },
    };
  }
  try {
    return { file, result: runScenario(doc, policies) };
  } catch (err) {
    if (err instanceof ScenarioValidationError)
      return { file, error: { message: err.message, stepIndex: err.stepIndex, field: err.field } };
    return { file, error: { message: `replay failed: ${(err as Error).message}` } };
  }
}

/** Lines of a readable diff between two JSON-able values: `-` expected, `+` actual. */
export function diffLines(expected: unknown, actual: unknown): string[] {
  const lines = (v: unknown) =>
    Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : JSON.stringify(v, null, 2).split('\n');
  const [e, a] = [lines(expected), lines(actual)];
  const out: string[] = [];
  for (const line of e) out.push(a.includes(line) ? `    ${line}` : `  - ${line}`);
  for (const line of a) if (!e.includes(line)) out.push(`  + ${line}`);
  // Same lines in another order (a sort order, say): show both values whole.
  if (!out.some((l) => l.startsWith('  -') || l.startsWith('  +')))
    return [`  - ${JSON.stringify(expected)}`, `  + ${JSON.stringify(actual)}`];
  return out;
}

export function formatReport(reports: FileReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    const res = r.result;
    if (r.error || !res) {
      out.push(`INVALID ${r.file}: ${r.error?.message ?? 'no result'}`);
      continue;
    }
    out.push(`${res.passed ? 'PASS' : 'FAIL'} ${res.id} (${r.file}, ${res.steps} steps)`);
    for (const f of res.failures) {
      out.push(`  step ${f.stepIndex} ${f.op}: ${f.message}  (- expected, + actual)`);
      out.push(...diffLines(f.expected, f.actual).map((l) => `  ${l}`));
    }
  }
  const passed = reports.filter((r) => r.result?.passed).length;
  const failed = reports.filter((r) => r.result && !r.result.passed).length;
  const invalid = reports.filter((r) => r.error).length;
  out.push(`${passed} passed, ${failed} failed${invalid ? `, ${invalid} invalid` : ''}`);
  return out.join('\n');
}

interface Simulated {
  offers: Array<{ frameworkId: string }>;
  shares: { roles: Record<string, number> };
}
interface WhatIfReply {
  cycles: number;
  frameworks: Record<string, string>;
  baseline: Simulated[];
  changed: Simulated[];
  scenario?: unknown;
}

/** A what-if's answer as a table: per role, the share after the last cycle and the offers made, as is and with the change. */
export function formatWhatIf(r: WhatIfReply): string {
  const offers = (cycles: Simulated[]) => {
    const out = new Map<string, number>();
    for (const c of cycles) for (const o of c.offers) out.set(o.frameworkId, (out.get(o.frameworkId) ?? 0) + 1);
    return out;
  };
  const [before, after] = [r.baseline.at(-1)?.shares.roles ?? {}, r.changed.at(-1)?.shares.roles ?? {}];
  const roles = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines = [`after ${r.cycles} cycle(s)          now      with the change`, 'role share'];
  for (const role of roles)
    lines.push(`  ${role.padEnd(28)} ${(before[role] ?? 0).toFixed(3).padStart(7)}  ${(after[role] ?? 0).toFixed(3).padStart(7)}`);
  lines.push('offers per framework');
  const [ob, oa] = [offers(r.baseline), offers(r.changed)];
  for (const id of [...new Set([...ob.keys(), ...oa.keys()])].sort())
    lines.push(`  ${(r.frameworks[id] ?? id).padEnd(28)} ${String(ob.get(id) ?? 0).padStart(7)}  ${String(oa.get(id) ?? 0).padStart(7)}`);
  return lines.join('\n');
}

interface SimulateOptions extends Connection {
  json?: boolean;
  fromCluster?: string;
  change?: string;
  cycles?: string;
  writeScenario?: string;
  modules?: string;
}

/**
 * `--modules FILE`: the allocator policies (sorter, placement) of a modules file, as the
 * control plane would load them; its other modules (hooks) are skipped.
 */
export async function policiesFrom(file: string | undefined): Promise<ScenarioPolicies & { names: string[] }> {
  if (file === undefined) return { names: [] };
  const loaded = await loadModules(readModulesFile(file), { host: 'allocator', skipOtherHosts: true });
  return {
    names: loaded.modules.map((m) => `${m.name} (${m.points.join(', ')})`),
    ...(loaded.sorter ? { sorterFactory: loaded.sorter.factory } : {}),
    ...(loaded.placement ? { placementFactory: loaded.placement.factory } : {}),
  };
}

/** `--from-cluster`: asks the live cluster's leader what the change would do (POST /api/v1/simulate). */
async function fromCluster(opts: SimulateOptions): Promise<void> {
  let change: unknown = {};
  try {
    if (opts.change) change = JSON.parse(fs.readFileSync(opts.change, 'utf8'));
  } catch (err) {
    throw new Error(`--change: cannot read ${opts.change}: ${(err as Error).message}`, { cause: err });
  }
  const cycles = opts.cycles === undefined ? undefined : Number(opts.cycles);
  const reply = (await call({ ...opts, master: opts.fromCluster }, 'POST', '/api/v1/simulate', {
    change,
    ...(cycles === undefined ? {} : { cycles }),
    ...(opts.writeScenario ? { scenario: true } : {}),
  })) as WhatIfReply;
  if (opts.writeScenario) {
    fs.writeFileSync(opts.writeScenario, JSON.stringify(reply.scenario, null, 2) + '\n');
    console.error(
      `wrote the cluster's snapshot as a scenario to ${opts.writeScenario} (replay it with: arbiter simulate ${opts.writeScenario})`,
    );
  }
  const { scenario: _scenario, ...rest } = reply;
  console.log(opts.json ? JSON.stringify(rest, null, 2) : formatWhatIf(reply));
}

export function register(program: Command): void {
  program
    .command('simulate')
    .description(
      'replay allocator or sorter scenarios (JSON) and check their expectations; or, with --from-cluster, predict what a change would do to the live cluster',
    )
    .argument('[files...]', 'scenario files')
    .option('--json', 'print a machine-readable report')
    .option(
      '--from-cluster <urls>',
      'a live control plane (or its replicas, comma-separated) to ask what-if of, from a snapshot of its allocator',
    )
    .option(
      '--change <file>',
      'with --from-cluster: a JSON file of the change to try (weights, quotas, addAgents, removeAgents, addFrameworks, removeFrameworks, demand)',
    )
    .option('--cycles <n>', 'with --from-cluster: allocation cycles to predict (1 to 10, default 3)')
    .option('--write-scenario <file>', "with --from-cluster: also write the cluster's snapshot as a scenario file")
    .option(
      '--token-file <file>',
      'with --from-cluster: a file holding an operator or admin token (or ARBITER_TOKEN, ~/.config/arbiter/token, a prompt)',
    )
    .option('--token <token>', 'with --from-cluster: the token itself (visible in the process list: prefer --token-file)')
    .option('--ca <file>', 'with --from-cluster: PEM certificate(s) to trust for https:// (ARBITER_CA_FILE)')
    .option(
      '--modules <file>',
      "replay with the allocator policies (a sorter, a placement) of a modules file, as the control plane's --modules loads them (docs/modules.md)",
    )
    .action(async (files: string[], opts: SimulateOptions) => {
      if (opts.fromCluster) {
        try {
          await fromCluster(opts);
        } catch (err) {
          // As the operator commands: one line with the API's code, and their exit codes (docs/cli.md).
          const { line, exitCode } = describeError(err as Error);
          console.error(line);
          process.exitCode = exitCode;
        }
        return;
      }
      if (!files.length) {
        console.error('name scenario files to replay, or --from-cluster URL to ask the live cluster');
        process.exitCode = 2;
        return;
      }
      let policies: Awaited<ReturnType<typeof policiesFrom>>;
      try {
        policies = await policiesFrom(opts.modules);
      } catch (err) {
        console.error((err as Error).message);
        process.exitCode = 2;
        return;
      }
      if (policies.names.length && !opts.json) console.log(`with modules: ${policies.names.join('; ')}`);
      const reports = files.map((f) => runFile(f, policies));
      if (opts.json) {
        const passed = reports.every((r) => r.result?.passed);
        console.log(JSON.stringify({ passed, scenarios: reports }, null, 2));
      } else {
        console.log(formatReport(reports));
      }
      process.exitCode = reports.some((r) => r.error) ? 2 : reports.some((r) => r.result?.passed === false) ? 1 : 0;
    });
}
