module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'dashboard',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  // The control plane's PostgreSQL (a migrated template; a fresh database per file), then a
  // production build of the dashboard when it is missing or stale.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/../control-plane/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/jest-setup.ts'],
};
