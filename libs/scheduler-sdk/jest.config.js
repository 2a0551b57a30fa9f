module.exports = require('../../jest.preset.js').tiered(__dirname, 'scheduler-sdk', { unit: {} });
