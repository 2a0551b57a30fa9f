#!/usr/bin/env node
// Starts the throttle example's executor (throttle-executor.ts) through SWC, as `arbiter` runs
// the TypeScript sources.
'use strict';
require('../../scripts/register');
require('./throttle-executor.ts')
  .main()
  .catch((err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  });
