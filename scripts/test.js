#!/usr/bin/env node
// `npm test`: type-check the workspace and lint it (ESLint and Prettier) side by side, then run
// every Jest project (see runJest) with a JSON report in reports/jest.json (read by .ci/run). Extra arguments go
// to Jest, e.g. `npm test -- libs/allocator` or `npm test -- -t "quota"`. SKIP_TYPECHECK=1 and
// SKIP_LINT=1 skip those steps while iterating.
//
// `--tier unit|integration|e2e` (`npm run test:unit`, ...) runs only that tier's Jest projects
// (see jest.preset.js), without the type check and lint.
const { spawn, spawnSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);
const cores = os.availableParallelism();
const tiers = [];
for (let i = args.indexOf('--tier'); i >= 0; i = args.indexOf('--tier')) tiers.push(...args.splice(i, 2).slice(1));
if (tiers.length) {
  process.env.ARBITER_TEST_TIER = tiers.join(',');
  process.env.SKIP_TYPECHECK ??= '1';
  process.env.SKIP_LINT ??= '1';
}

// The checks run side by side, as many at once as there are cores (each is one process on one
// core); each one's output is printed when it ends, and the first failure stops the run.
const checks = [];
if (!process.env.SKIP_LINT) {
  checks.push(
    { name: 'eslint .', tool: 'eslint', args: ['.'], failure: 'Lint failed (eslint); `npm run lint` shows the findings.' },
    {
      name: 'prettier --check .',
      tool: 'prettier',
      // --cache: only files changed since the last check are read again (node_modules/.cache/prettier).
      args: ['--check', '.', '--log-level', 'warn', '--cache'],
      failure: 'Lint failed (prettier); `npm run format` fixes formatting.',
    },
    // The control plane's folders depend on each other one way (no circle; the kernel and
    // infrastructure name no noun).
    {
      name: 'folder-deps',
      command: process.execPath,
      args: [path.join('scripts', 'folder-deps.js')],
      failure: 'Lint failed (folder-deps): the imports it prints make a circle or reach from infrastructure into a noun.',
    },
  );
}
if (!process.env.SKIP_TYPECHECK) {
  // The workspace, then the dashboard (its own settings: JSX, the DOM, bundler resolution);
  // incremental, so that a second run checks only what changed.
  const cache = path.join(root, 'node_modules', '.cache', 'arbiter');
  for (const [project, info] of [
    ['tsconfig.json', 'workspace.tsbuildinfo'],
    ['apps/dashboard/tsconfig.json', 'dashboard.tsbuildinfo'],
  ]) {
    checks.push({
      name: `tsc -p ${project} --noEmit`,
      tool: 'tsc',
      args: ['-p', path.join(root, project), '--noEmit', '--incremental', '--tsBuildInfoFile', path.join(cache, info)],
      failure: 'Type check failed.',
    });
  }
}

const running = new Set();

function runCheck(check) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(check.command ?? bin(check.tool), check.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (code) => {
      running.delete(child);
      console.log(`> ${check.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      if (output) process.stdout.write(output);
      resolve({ check, code });
    });
  });
}

async function runChecks() {
  const queue = [...checks];
  const failed = [];
  const worker = async () => {
    for (let check = queue.shift(); check && !failed.length; check = queue.shift()) {
      const { code } = await runCheck(check);
      if (code !== 0) {
        failed.push({ check, code });
        // The checks still running are not waited for.
        for (const child of running) child.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(cores, queue.length) }, worker));
  if (failed.length) {
    console.error(failed[0].check.failure);
    process.exit(failed[0].code ?? 1);
  }
}

/**
 * Jest's default on N cores is N - 1 workers: one on two cores, which leaves a core idle while a
 * test waits on PostgreSQL, a socket or a child process. Unit and integration tests run on at
 * least two workers; end-to-end tests, which start several processes each, after them on half
 * as many (one on two cores). Each run writes its report; reports/jest.json holds them merged.
 * Given --maxWorkers (or --runInBand), one run does it all as told.
 */
function runJest() {
  const reports = path.join(root, 'reports');
  fs.mkdirSync(reports, { recursive: true });
  const selected = (process.env.ARBITER_TEST_TIER ?? 'unit,integration,e2e').split(',').filter(Boolean);
  const told = args.some((a) => /^(--maxWorkers|-w|--runInBand|-i$)/.test(a));
  const runs = told
    ? [{ tiers: selected, workers: [] }]
    : [
        { tiers: selected.filter((t) => t !== 'e2e'), workers: [`--maxWorkers=${Math.max(2, cores - 1)}`] },
        { tiers: selected.filter((t) => t === 'e2e'), workers: [`--maxWorkers=${Math.max(1, Math.floor((cores - 1) / 2))}`] },
      ].filter((run) => run.tiers.length);
  let status = 0;
  const parts = runs.map((run, n) => {
    const file = path.join(reports, runs.length > 1 ? `jest-${n + 1}.json` : 'jest.json');
    const jestArgs = ['--json', '--outputFile', file, ...run.workers, ...(runs.length > 1 ? ['--passWithNoTests'] : []), ...args];
    if (process.env.CI) jestArgs.push('--ci');
    if (runs.length > 1) console.log(`> jest: ${run.tiers.join(', ')} (${run.workers.join(' ')})`);
    const env = { ...process.env, ARBITER_TEST_TIER: run.tiers.join(',') };
    const jest = spawnSync(bin('jest'), jestArgs, { stdio: 'inherit', cwd: root, env });
    if (jest.status !== 0) status = jest.status ?? 1;
    return file;
  });
  if (parts.length > 1) mergeReports(parts, path.join(reports, 'jest.json'));
  process.exit(status);
}

/** One report of several Jest runs: the counts summed, the files' results one after the other. */
function mergeReports(files, into) {
  const read = files.filter((f) => fs.existsSync(f)).map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  if (!read.length) return;
  const merged = { ...read[0], testResults: read.flatMap((r) => r.testResults) };
  for (const key of Object.keys(read[0])) {
    if (typeof read[0][key] === 'number' && key.startsWith('num')) merged[key] = read.reduce((sum, r) => sum + (r[key] ?? 0), 0);
  }
  merged.success = read.every((r) => r.success);
  merged.startTime = Math.min(...read.map((r) => r.startTime));
  fs.writeFileSync(into, JSON.stringify(merged));
  for (const f of files) fs.rmSync(f, { force: true });
}

void runChecks().then(runJest);
