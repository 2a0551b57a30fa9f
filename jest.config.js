// One Jest run over every workspace project; `npm test` writes its JSON report to reports/.
module.exports = {
  projects: ['<rootDir>/libs/*/jest.config.js', '<rootDir>/apps/*/jest.config.js'],
};
