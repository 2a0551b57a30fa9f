module.exports = require('../../jest.preset.js').tiered(__dirname, 'contracts', {
  unit: { testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'] },
});
