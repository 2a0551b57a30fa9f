module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'control-plane',
  // One PostgreSQL server for the run (DATABASE_URL's, or an embedded one) with a migrated
  // template database; every test file gets a fresh database copied from the template.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/jest-setup.ts'],
};
