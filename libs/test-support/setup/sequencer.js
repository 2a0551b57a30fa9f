// The order Jest starts test files in: Jest's own (a file that failed last time first, then the
// files it has no time for, then the slowest), except that a file it has no time for weighs its
// size plus that of the cases it runs (`<name>.spec.ts` running `<name>/*.cases.ts`, see
// casesIn), where Jest would weigh only the file: on a first run (a fresh clone, CI) the files of
// cases, the largest, start first instead of last, and no worker is left with one at the end.
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** A test file's size, and its cases' when it runs a folder of them. */
function weight(file) {
  let size = fs.statSync(file).size;
  const cases = file.replace(/\.spec\.ts$/, '');
  if (cases !== file && fs.existsSync(cases) && fs.statSync(cases).isDirectory())
    for (const f of fs.readdirSync(cases)) if (f.endsWith('.cases.ts')) size += fs.statSync(path.join(cases, f)).size;
  return size;
}

class CasesSequencer extends Sequencer {
  sort(tests) {
    const weights = new Map();
    const weightOf = (test) => {
      if (!weights.has(test.path)) weights.set(test.path, weight(test.path));
      return weights.get(test.path);
    };
    for (const test of tests) test.duration = this.time(test);
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      const timedA = a.duration != null;
      if (timedA !== (b.duration != null)) return timedA ? 1 : -1;
      if (timedA) return b.duration - a.duration;
      return weightOf(b) - weightOf(a);
    });
  }
}

module.exports = CasesSequencer;
