// Browser tests only: the control plane's PostgreSQL (a migrated template; a fresh database per
// file), then a production build of the dashboard when it is missing or stale.
module.exports = require('../../jest.preset.js').tiered(__dirname, 'dashboard', {
  e2e: {
    globalSetup: '<rootDir>/test/support/global-setup.ts',
    globalTeardown: '<rootDir>/../control-plane/test/support/global-teardown.ts',
  },
});
