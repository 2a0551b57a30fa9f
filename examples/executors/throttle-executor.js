#!/usr/bin/env node
// Starts the throttle example's executor (throttle-executor.ts) through SWC, as `arbiter` runs
// the TypeScript sources.
'use strict';
const path = require('node:path');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || path.join(__dirname, '..', '..', 'tsconfig.base.json');
require('@swc-node/register');
require('./throttle-executor.ts')
  .main()
  .catch((err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  });
