module.exports = require('../../jest.preset.js').tiered(__dirname, 'agent', { unit: {}, integration: {}, e2e: {} });
