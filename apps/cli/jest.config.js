// The CLI's end-to-end tests run it as a user does; those that need a database get the control
// plane's (a migrated template; a fresh database per file, or a scratch one the CLI makes).
const database = {
  globalSetup: '<rootDir>/../control-plane/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/../control-plane/test/support/global-teardown.ts',
};
module.exports = require('../../jest.preset.js').tiered(__dirname, 'cli', { unit: {}, e2e: database });
