#!/usr/bin/env node
// `npm test`: the type check and lint (ESLint, Prettier, folder-deps) side by side, on the CPU time
// left by every Jest project running meanwhile (see runChecks and runJest), with a JSON report in
// reports/jest.json (read by .ci/run).
// A failed check or test fails the run. Extra arguments go to Jest, e.g. `npm test -- libs/allocator`
// or `npm test -- -t "quota"`. SKIP_TYPECHECK=1 and SKIP_LINT=1 skip those steps while iterating.
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

// The checks: with both the type check and lint, one process per share of the packages does the
// type check and ESLint on the same TypeScript programs (scripts/typecheck-lint.js); either alone
// runs tsc or ESLint.
const checks = [];
const tscChecks = () => {
  // The workspace, then the dashboard (its own settings: JSX, the DOM, bundler resolution);
  // incremental, so that a second run checks only what changed.
  const cache = path.join(root, 'node_modules', '.cache', 'arbiter');
  return [
    ['tsconfig.json', 'workspace.tsbuildinfo'],
    ['apps/dashboard/tsconfig.json', 'dashboard.tsbuildinfo'],
  ].map(([project, info]) => ({
    name: `tsc -p ${project} --noEmit`,
    tool: 'tsc',
    args: ['-p', path.join(root, project), '--noEmit', '--incremental', '--tsBuildInfoFile', path.join(cache, info)],
    failure: 'Type check failed.',
  }));
};
if (!process.env.SKIP_TYPECHECK && !process.env.SKIP_LINT) {
  // In two shares on two cores or more: what is left of them when the tests end runs on both.
  const shares = cores >= 2 ? 2 : 1;
  for (let i = 1; i <= shares; i++)
    checks.push({
      name: `type check and eslint${shares > 1 ? ` (${i}/${shares})` : ''}`,
      command: process.execPath,
      args: [path.join('scripts', 'typecheck-lint.js'), ...(shares > 1 ? ['--part', `${i}/${shares}`] : [])],
      failure: 'Type check or lint failed (above); `npm run typecheck` and `npm run lint` run them alone.',
    });
} else if (!process.env.SKIP_TYPECHECK) {
  checks.push(...tscChecks());
} else if (!process.env.SKIP_LINT) {
  checks.push({ name: 'eslint .', tool: 'eslint', args: ['.'], failure: 'Lint failed (eslint); `npm run lint` shows the findings.' });
}
if (!process.env.SKIP_LINT) {
  checks.push(
    {
      name: 'prettier --check .',
      command: process.execPath,
      // Skips the files found formatted before with the same content and settings, in this clone or
      // another on the machine (scripts/prettier-check.js).
      args: [path.join('scripts', 'prettier-check.js')],
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

/** The Jest project of the dashboard's browser tests (see runJest). */
const BROWSER_TESTS = 'dashboard:e2e';

/** The dashboard's production build, made beside the tests (see runJest). */
const DASHBOARD_BUILD = 'dashboard build';

/** chrt (util-linux), which starts a command under Linux's SCHED_IDLE policy, where there is one. */
const CHRT = ['/usr/bin/chrt', '/bin/chrt'].find((f) => process.platform === 'linux' && fs.existsSync(f));

/** The process ids of the commands started `idle` that are still running (see run and unidle). */
const idling = new Set();

/**
 * Starts a command, its output piped (`collect`: kept and printed as one block when it ends) or
 * inherited; resolves with its exit code. `idle` runs it (and its children) only on a CPU that
 * nothing else wants: Linux's SCHED_IDLE policy, through chrt; nice 19 elsewhere.
 */
function run(name, command, commandArgs, { collect = false, idle = false, env = process.env } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const [file, fileArgs] = idle && CHRT ? [CHRT, ['--idle', '0', command, ...commandArgs]] : [command, commandArgs];
    const child = spawn(file, fileArgs, { cwd: root, env, stdio: collect ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (idle) idling.add(child.pid);
    if (idle && !CHRT) {
      try {
        os.setPriority(child.pid, 19);
      } catch {
        // Only the scheduling changes: the command runs all the same.
      }
    }
    let output = '';
    child.stdout?.on('data', (c) => (output += c));
    child.stderr?.on('data', (c) => (output += c));
    child.on('close', (code, signal) => {
      idling.delete(child.pid);
      console.log(`> ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      if (output) process.stdout.write(output);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/**
 * Gives the commands started `idle` (and their children) the CPU like any other once nothing waits
 * for the CPU they were leaving: on a machine loaded by others, a command on SCHED_IDLE gets almost
 * none. Where the policy cannot be changed back (not root, a RLIMIT_NICE of 0), they stay idle.
 */
function unidle() {
  const tree = (pid) => {
    let children = [];
    try {
      for (const task of fs.readdirSync(`/proc/${pid}/task`))
        children.push(...fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch {
      children = [];
    }
    return [pid, ...children.flatMap(tree)];
  };
  for (const pid of [...idling].flatMap(tree)) {
    if (CHRT) spawnSync(CHRT, ['--other', '--all-tasks', '--pid', '0', String(pid)], { stdio: 'ignore' });
    try {
      os.setPriority(pid, 0);
    } catch {
      // Not allowed: it goes on at its priority.
    }
  }
}

/**
 * The checks run beside the tests, on the CPU time the tests leave (SCHED_IDLE, see run): they
 * only need CPU time, where tests wait on timers, sockets, PostgreSQL and processes and assert on
 * what happens meanwhile; a test woken on a timer takes its core back from a check at once. A
 * failed check fails the run once the tests end (its output is printed when it ends).
 */
async function runChecks() {
  const codes = await Promise.all(
    checks.map(async (check) => {
      // Their output is piped, to be printed in one block: colours only when this run has a terminal.
      const env = process.stdout.isTTY ? { FORCE_COLOR: '1', ...process.env } : process.env;
      const code = await run(check.name, check.command ?? bin(check.tool), check.args, { collect: true, idle: true, env });
      if (code !== 0) console.error(check.failure);
      return code;
    }),
  );
  return codes.find((code) => code !== 0) ?? 0;
}

/**
 * The Jest runs, side by side: every tier but the browser tests in one run on twice as many
 * workers as cores (at least four), and the dashboard's browser tests in a run of their own.
 *
 * Most files wait far more than they compute: integration files on PostgreSQL, end-to-end files
 * on processes (leases, timeouts, grace periods, agents registering). One after the other, on
 * two workers each, the unit and integration tiers used 1.4 of two cores and the end-to-end tier
 * 1.1 (135 s and 188 s); in one run on four workers the same files took 212 s in all. Jest starts
 * the largest files first (the end-to-end ones), and the short unit and integration files fill
 * the waits. Performance is measured by the bench scripts, not by tests, so a slower test is
 * still a passing one; the few bounds on time in tests (a failover within 10 s, a SIGTERM's kill
 * within 0.9 s) and `until`'s tier defaults leave room for a busy machine.
 *
 * The browser tests need the dashboard's production build; their own run waits for it while the
 * others test (in a whole run the build starts with the tests, at normal priority: it is short,
 * and the browser tests wait on it), and its output is printed in one block when it ends. Each
 * run writes its report; reports/jest.json holds them merged. Given --maxWorkers (or
 * --runInBand), one run does it all as told.
 */
async function runJest() {
  const reports = path.join(root, 'reports');
  fs.mkdirSync(reports, { recursive: true });
  const selected = (process.env.ARBITER_TEST_TIER ?? 'unit,integration,e2e').split(',').filter(Boolean);
  const told = args.some((a) => /^(--maxWorkers|-w|--runInBand|-i$)/.test(a));
  const workers = Math.max(4, 2 * cores);
  const runs = told
    ? [{ tiers: selected, options: [] }]
    : [
        {
          tiers: selected,
          options: [`--maxWorkers=${workers}`, ...(selected.includes('e2e') ? ['--ignoreProjects', BROWSER_TESTS] : [])],
        },
        ...(selected.includes('e2e')
          ? [{ tiers: ['e2e'], options: ['--maxWorkers=1', '--selectProjects', BROWSER_TESTS], collect: true, browser: true }]
          : []),
      ];
  // The time bounds of the tests (libs/test-support's timeScale): a whole run keeps about
  // (workers + the browser tests + the checks) processes busy on `cores` cores.
  if (!told) process.env.ARBITER_TEST_TIME_SCALE ??= String(Math.max(1, Math.round((workers + 2) / cores)));
  const files = runs.map((_, n) => path.join(reports, runs.length > 1 ? `jest-${n + 1}.json` : 'jest.json'));
  const browser = runs.find((r) => r.browser);
  // The whole run (no paths or filters given): the dashboard's production build starts now, and
  // the browser tests wait for it rather than make it themselves.
  if (browser && !args.length)
    browser.waitFor = run(DASHBOARD_BUILD, process.execPath, [path.join('scripts', 'build-dashboard.js')], { collect: true });
  const codes = await Promise.all(
    runs.map(async (r, n) => {
      // A failed build is made again (and its error shown) by the browser tests' global setup.
      await r.waitFor;
      const jestArgs = ['--json', '--outputFile', files[n], ...r.options, ...(runs.length > 1 ? ['--passWithNoTests'] : []), ...args];
      if (process.env.CI) jestArgs.push('--ci');
      const name = `jest: ${r.tiers.join(', ')}${r.options.length ? ` (${r.options.join(' ')})` : ''}`;
      if (runs.length > 1) console.log(`> ${name}`);
      return run(name, bin('jest'), jestArgs, { collect: r.collect, env: { ...process.env, ARBITER_TEST_TIER: r.tiers.join(',') } });
    }),
  );
  if (files.length > 1) mergeReports(files, path.join(reports, 'jest.json'));
  return codes.find((code) => code !== 0) ?? 0;
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

// The checks and the tests at once, the checks on the CPU time the tests leave (see runChecks).
// (At nice 10 rather than SCHED_IDLE, the checks beside the tests starved those that assert on
// timing.)
void Promise.all([runChecks(), runJest().finally(unidle)]).then(([checked, tested]) => {
  if (checked !== 0) console.error('Tests ran, but a check failed (above).');
  process.exit(tested || checked);
});
