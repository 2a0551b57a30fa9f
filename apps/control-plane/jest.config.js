// One PostgreSQL server for the run (DATABASE_URL's, or an embedded one) with a migrated
// template database for the integration and end-to-end tiers; every test file gets a fresh
// database copied from the template. Unit tests need neither.
const database = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
module.exports = require('../../jest.preset.js').tiered(__dirname, 'control-plane', { unit: {}, integration: database, e2e: database });
