#!/usr/bin/env node
// The `arbiter` command. Runs the TypeScript sources directly through SWC (which, unlike
// esbuild, emits the decorator metadata NestJS needs): scripts/register.js.
require('../../../scripts/register');
require('../src/main.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  })
  .catch((err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exitCode = 1;
  });
