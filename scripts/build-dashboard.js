#!/usr/bin/env node
// The dashboard's production build when it is missing or stale (what the browser tests' global
// setup and `arbiter start` make on first use): `npm test` starts it early, beside the other
// tiers, so that the browser tests find it made.
require('./register');
require('../apps/cli/src/commands/dashboard.ts').ensureDashboardBuilt();
