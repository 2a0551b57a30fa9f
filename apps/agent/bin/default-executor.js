#!/usr/bin/env node
// The agent's default executor (task groups): started by the agent for executors of type DEFAULT.
// Runs the TypeScript sources through SWC, as the `arbiter` command does.
const path = require('node:path');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || path.join(__dirname, '..', '..', '..', 'tsconfig.base.json');
require('@swc-node/register');
require('../src/executors/default-executor-main.ts')
  .main()
  .catch((err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exitCode = 1;
  });
