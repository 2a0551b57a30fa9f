module.exports = require('../../jest.preset.js').tiered(__dirname, 'test-support', { unit: {} });
