#!/usr/bin/env node
// The agent's default executor (task groups): started by the agent for executors of type DEFAULT.
// Runs the TypeScript sources through SWC, as the `arbiter` command does (scripts/register.js).
require('../../../scripts/register');
require('../src/executors/default-executor-main.ts')
  .main()
  .catch((err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exitCode = 1;
  });
