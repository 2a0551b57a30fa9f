// One Jest run over every workspace package, one project per package and tier (see
// jest.preset.js); `npm test` writes its JSON report to reports/. ARBITER_TEST_TIER keeps some tiers.
const path = require('node:path');
const fs = require('node:fs');

const packages = ['libs', 'apps'].flatMap((dir) =>
  fs.readdirSync(path.join(__dirname, dir)).map((name) => path.join(__dirname, dir, name)),
);
module.exports = {
  // Jest's order of test files, a file of cases weighing what its cases do (see the file).
  testSequencer: path.join(__dirname, 'libs/test-support/setup/sequencer.js'),
  projects: packages
    .filter((dir) => fs.existsSync(path.join(dir, 'jest.config.js')))
    .flatMap((dir) => require(path.join(dir, 'jest.config.js')).projects),
};
