module.exports = { ...require('../../jest.preset.js'), displayName: 'agent', setupFilesAfterEnv: ['<rootDir>/test/jest-setup.ts'] };
