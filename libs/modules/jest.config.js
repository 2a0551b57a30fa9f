// Unit tests only: the loader and the hook runner, with module packages written to temp directories.
module.exports = require('../../jest.preset.js').tiered(__dirname, 'modules', {
  unit: { testMatch: ['<rootDir>/src/**/*.spec.ts'] },
});
