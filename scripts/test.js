#!/usr/bin/env node
// `npm test`: type-check the workspace, lint it (ESLint and Prettier), then run every Jest
// project once with a JSON report in reports/jest.json (read by .ci/run). Extra arguments go
// to Jest, e.g. `npm test -- libs/allocator` or `npm test -- -t "quota"`. SKIP_TYPECHECK=1 and
// SKIP_LINT=1 skip those steps while iterating.
//
// `--tier unit|integration|e2e` (`npm run test:unit`, ...) runs only that tier's Jest projects
// (see jest.preset.js), without the type check and lint.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);
const tiers = [];
for (let i = args.indexOf('--tier'); i >= 0; i = args.indexOf('--tier')) tiers.push(...args.splice(i, 2).slice(1));
if (tiers.length) {
  process.env.ARBITER_TEST_TIER = tiers.join(',');
  process.env.SKIP_TYPECHECK ??= '1';
  process.env.SKIP_LINT ??= '1';
}

if (!process.env.SKIP_TYPECHECK) {
  // The workspace, then the dashboard (its own settings: JSX, the DOM, bundler resolution).
  for (const project of ['tsconfig.json', 'apps/dashboard/tsconfig.json']) {
    console.log(`> tsc -p ${project} --noEmit`);
    const tsc = spawnSync(bin('tsc'), ['-p', path.join(root, project), '--noEmit'], { stdio: 'inherit', cwd: root });
    if (tsc.status !== 0) {
      console.error('Type check failed.');
      process.exit(tsc.status ?? 1);
    }
  }
}

if (!process.env.SKIP_LINT) {
  for (const [name, tool, toolArgs] of [
    ['eslint', bin('eslint'), ['.']],
    ['prettier', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
    // The control plane's folders depend on each other one way (no circle; the kernel and
    // infrastructure name no noun).
    ['folder-deps', process.execPath, [path.join('scripts', 'folder-deps.js')]],
  ]) {
    console.log(`> ${name} ${toolArgs.join(' ')}`);
    const run = spawnSync(tool, toolArgs, { stdio: 'inherit', cwd: root });
    if (run.status !== 0) {
      console.error(`Lint failed (${name}); \`npm run lint\` shows the findings, \`npm run format\` fixes formatting.`);
      process.exit(run.status ?? 1);
    }
  }
}

fs.mkdirSync(path.join(root, 'reports'), { recursive: true });
const jestArgs = ['--json', '--outputFile', path.join(root, 'reports', 'jest.json'), ...args];
if (process.env.CI) jestArgs.push('--ci');
const jest = spawnSync(bin('jest'), jestArgs, { stdio: 'inherit', cwd: root });
process.exit(jest.status ?? 1);
