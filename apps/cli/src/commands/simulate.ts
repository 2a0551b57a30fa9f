/**
 * `arbiter simulate FILE.json [...]`: replays allocator and sorter scenarios and reports, per
 * scenario, pass or fail with expected-versus-actual for each failed expectation.
 * Exit status: 0 all pass, 1 an expectation failed, 2 a file is invalid.
 */
import * as fs from 'node:fs';
import type { Command } from 'commander';
import { runScenario, ScenarioValidationError, type ScenarioResult } from '@arbiter/allocator';

interface FileReport {
  file: string;
  result?: ScenarioResult;
  error?: { message: string; stepIndex?: number; field?: string };
}

function runFile(file: string): FileReport {
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
    return { file, result: runScenario(doc) };
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

export function register(program: Command): void {
  program
    .command('simulate')
    .description('replay allocator or sorter scenarios (JSON) and check their expectations')
    .argument('<files...>', 'scenario files')
    .option('--json', 'print a machine-readable report')
    .action((files: string[], opts: { json?: boolean }) => {
      const reports = files.map(runFile);
      if (opts.json) {
        const passed = reports.every((r) => r.result?.passed);
        console.log(JSON.stringify({ passed, scenarios: reports }, null, 2));
      } else {
        console.log(formatReport(reports));
      }
      process.exitCode = reports.some((r) => r.error) ? 2 : reports.some((r) => r.result?.passed === false) ? 1 : 0;
    });
}
