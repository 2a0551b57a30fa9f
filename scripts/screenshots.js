#!/usr/bin/env node
// `npm run screenshots`: renders every dashboard page in headless Chromium against a real
// control plane and agent (the browser test that visits them) and writes the README's
// screenshots into docs/screenshots. `npm test` renders the same pages but writes no file.
// The whole browser test runs: its last test visits the pages the earlier ones filled.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const jest = spawnSync(path.join(root, 'node_modules', '.bin', 'jest'), ['--selectProjects', 'dashboard:e2e'], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, ARBITER_SCREENSHOTS: '1' },
});
process.exit(jest.status ?? 1);
