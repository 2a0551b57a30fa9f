#!/usr/bin/env node
// The `arbiter` command. Runs the TypeScript sources directly through SWC (which, unlike
// esbuild, emits the decorator metadata NestJS needs), with the workspace's tsconfig.
const path = require('node:path');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || path.join(__dirname, '..', '..', '..', 'tsconfig.base.json');
require('@swc-node/register');
require('../src/main.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  })
  .catch((err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exitCode = 1;
  });
