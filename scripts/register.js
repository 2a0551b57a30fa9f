// Runs the TypeScript sources in Node.js (`require('./scripts/register')`, or `node -r`): each
// .ts or .tsx file is compiled by SWC as it is required, with the settings the tests compile
// with (jest.preset.js: decorators and their metadata, which NestJS needs; CommonJS; ES2022).
//
// Each file's output is kept in the user's cache folder (scripts/cache-dir.js: ~/.cache/arbiter/swc),
// named by a hash of its path in the workspace, its source and the settings, so that it serves
// every clone of the same code on the machine: a process compiles only what no process compiled
// before, and one whose files are all kept never loads SWC. The code carries its map inline
// (debuggers read it there), naming the source by its base name (resolved against the file's own
// path, whichever clone compiled it), and stack traces name the TypeScript lines (the map is read
// from the kept code when a trace needs it).
//
// In place of @swc-node/register, which loads the TypeScript compiler in every process to read
// tsconfig.json: 0.13 s of CPU for every `arbiter` command, control plane, agent, executor and
// what-if worker (docs/benchmarks.md, "Every tier at once").
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { addHook } = require('pirates');

const ROOT = path.join(__dirname, '..');
const CACHE = path.join(require('./cache-dir').cacheDir(ROOT), 'swc');

/** The settings of jest.preset.js, with a map for each file. */
function optionsFor(filename) {
  return {
    filename,
    sourceFileName: path.basename(filename),
    jsc: {
      parser: { syntax: 'typescript', decorators: true, tsx: filename.endsWith('.tsx') },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: true,
  };
}

/** What a change of settings or of SWC must miss: the settings as written here and SWC's version. */
const SETTINGS = `${optionsFor.toString()}\0${require('@swc/core/package.json').version}`;

/** Each compiled file's map (read when a stack trace needs it). */
const maps = new Map();

/** How compiled code ends: its map, inline. */
const MAP_URL = '//# sourceMappingURL=data:application/json;base64,';

/** The map inlined at the end of compiled code. */
function inlineMap(js) {
  return Buffer.from(js.slice(js.lastIndexOf(MAP_URL) + MAP_URL.length).trim(), 'base64').toString('utf8');
}

/** `filename`'s JavaScript: from the cache when its source was compiled before, else compiled (and kept). */
function compile(source, filename) {
  const key = crypto
    .createHash('sha256')
    .update(`${SETTINGS}\0${path.relative(ROOT, filename)}\0${source}`)
    .digest('hex');
  const code = path.join(CACHE, `${key}.js`);
  maps.set(filename, () => inlineMap(fs.readFileSync(code, 'utf8')));
  try {
    return fs.readFileSync(code, 'utf8');
  } catch {
    // Not compiled yet.
  }
  const out = require('@swc/core').transformSync(source, optionsFor(filename));
  const js = `${out.code}\n${MAP_URL}${Buffer.from(out.map).toString('base64')}\n`;
  try {
    // Written whole (renamed into place): another process never reads half of it.
    fs.mkdirSync(CACHE, { recursive: true });
    const tmp = `${code}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, js);
    fs.renameSync(tmp, code);
  } catch {
    // A read-only checkout: compiled again next time, its map kept in memory meanwhile.
    maps.set(filename, () => out.map);
  }
  return js;
}

require('source-map-support').install({
  environment: 'node',
  handleUncaughtExceptions: false,
  retrieveSourceMap(file) {
    const map = maps.get(file);
    if (!map) return null;
    try {
      return { url: file, map: map() };
    } catch {
      return null;
    }
  },
});

addHook(compile, { exts: ['.ts', '.tsx'], ignoreNodeModules: true });
