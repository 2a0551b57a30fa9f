#!/usr/bin/env node
// The dashboard's production build when it is missing or stale (what the browser tests' global
// setup and `arbiter start` make on first use): `npm test` starts it early, beside the other
// tiers, so that the browser tests find it made.
const path = require('node:path');

process.env.SWC_NODE_PROJECT ??= path.join(__dirname, '..', 'tsconfig.base.json');
require('@swc-node/register');
require('../apps/cli/src/commands/dashboard.ts').ensureDashboardBuilt();
