module.exports = { ...require('../../jest.preset.js'), displayName: 'scheduler-sdk' };
