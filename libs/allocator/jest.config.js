// Unit tests only: the allocator's specs beside its code and its scenario and property tests in test/.
module.exports = require('../../jest.preset.js').tiered(__dirname, 'allocator', {
  unit: { testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'] },
});
