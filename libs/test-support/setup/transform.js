// Jest's transform of TypeScript (and of NestJS's ES modules): @swc/jest with the settings of
// jest.preset.js, its output and cache key made independent of where the checkout is, so that
// Jest's cache (os.tmpdir()/jest_<uid>, shared by the machine's clones and worktrees) serves every
// clone of the same code, as the type check's records do (scripts/check-cache.js):
// - the key is a hash of the file's source, its path relative to the project's root, the settings
//   and the versions of SWC, @swc/jest and Node.js (with the project's `id` set in jest.preset.js,
//   Jest's cache folder does not name the checkout either);
// - the inline source map names the file by its base name, which a stack trace resolves against the
//   file's own path (an absolute name would be the first clone's).
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const swcJest = require('@swc/jest');

const VERSIONS = [require('@swc/core/package.json').version, require('@swc/jest/package.json').version, process.version].join('\0');

/** How SWC's code ends: its map, inline. */
const MAP_URL = '//# sourceMappingURL=data:application/json;base64,';

/** `code` with its inline map naming the source by its base name. */
function relocatable(code, filename) {
  const at = code.lastIndexOf(MAP_URL);
  if (at < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(at + MAP_URL.length).trim(), 'base64').toString('utf8'));
  map.sources = (map.sources ?? []).map((s) => (path.resolve(s) === path.resolve(filename) ? path.basename(filename) : s));
  return `${code.slice(0, at)}${MAP_URL}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

/** Which of Jest's module features the caller supports (the output differs with them). */
const features = (o) =>
  ['supportsDynamicImport', 'supportsExportNamespaceFrom', 'supportsStaticESM', 'supportsTopLevelAwait']
    .map((f) => (o[f] ? '1' : '0'))
    .join('');

function createTransformer(options) {
  const inner = swcJest.createTransformer(options);
  const settings = `${JSON.stringify(options)}\0${VERSIONS}`;
  return {
    ...inner,
    process(src, filename, jestOptions) {
      const out = inner.process(src, filename, jestOptions);
      return { ...out, code: relocatable(out.code, filename) };
    },
    async processAsync(src, filename, jestOptions) {
      const out = await inner.processAsync(src, filename, jestOptions);
      return { ...out, code: relocatable(out.code, filename) };
    },
    getCacheKey(src, filename, jestOptions) {
      const relative = path.relative(jestOptions.config.rootDir, filename).split(path.sep).join('/');
      return crypto
        .createHash('sha256')
        .update(`${settings}\0${relative}\0${features(jestOptions)}\0${jestOptions.instrument ? 'instrument' : ''}\0`)
        .update(src)
        .digest('hex');
    },
  };
}

module.exports = { createTransformer };
