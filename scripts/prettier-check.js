#!/usr/bin/env node
// `prettier --check .` for `npm test`, skipping the files found formatted before with the same
// content and settings, in this checkout or another on the machine (the records of
// scripts/check-cache.js, in the user's cache folder). Prettier's own --cache names files by their
// absolute paths in a file inside node_modules, so every fresh clone (CI's) checked all of them
// again, and at the end of a run: the check waits on SCHED_IDLE while the tests use the cores.
//
// The files are those Prettier's command line finds for `.`: the files git knows or would add
// (`git ls-files --cached --others --exclude-standard`), less those .prettierignore and .gitignore
// ignore and those no parser takes. Without git (a copy of the sources), Prettier's command line
// does it all. A key is the file's path in the workspace and its content, with the settings
// (.prettierrc.json, .prettierignore, this script, and what CheckCache keys on: the lock file that
// pins Prettier and its plugins). Prints what is not formatted, as `prettier --check` does, and
// exits 1 then (2 when a file cannot be parsed).
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { CheckCache } = require('./check-cache');

const sha = (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The files `prettier --check .` would look at in `root`, relative to it; undefined without git. */
function candidates(root) {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) return undefined;
  // Deleted but not yet committed: git still lists them.
  return r.stdout.split('\0').filter((f) => f && fs.existsSync(path.join(root, f)));
}

/**
 * Checks the formatting of the workspace at `root`: the files not formatted (relative paths), the
 * files that could not be parsed (with why), and how many were checked (the others were found
 * formatted before); undefined without git. `cacheDir`: where the records live (see CheckCache).
 */
async function checkFormatting(root, cacheDir) {
  const files = candidates(root);
  if (!files) return undefined;
  const prettier = require('prettier');
  const cache = new CheckCache(root, 'prettier', cacheDir);
  const own = ['.prettierrc.json', '.prettierignore']
    .map((f) => (fs.existsSync(path.join(root, f)) ? sha(fs.readFileSync(path.join(root, f))) : 'missing'))
    .join('\0');
  const settings = sha(`${cache.settings}\0${prettier.version}\0${own}\0${sha(fs.readFileSync(__filename))}`);
  const ignorePath = ['.gitignore', '.prettierignore'].map((f) => path.join(root, f));
  const result = { unformatted: [], broken: [], checked: 0 };
  const checkOne = async (rel) => {
    const file = path.join(root, rel);
    const content = fs.readFileSync(file, 'utf8');
    const key = sha(`${settings}\0${rel.split(path.sep).join('/')}\0${content}`);
    if (cache.clean('prettier', key)) return;
    const info = await prettier.getFileInfo(file, { ignorePath, resolveConfig: true });
    if (info.ignored || !info.inferredParser) return;
    result.checked++;
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    try {
      if (await prettier.check(content, options)) cache.found('prettier', key);
      else result.unformatted.push(rel);
    } catch (err) {
      result.broken.push(`${rel}: ${err.message}`);
    }
  };
  // A few at a time: the checks are CPU work, the reads are not.
  const queue = [...files];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) await checkOne(f);
    }),
  );
  cache.save();
  result.unformatted.sort();
  return result;
}

async function main() {
  const root = path.resolve(__dirname, '..');
  const result = await checkFormatting(root);
  if (!result) {
    const cli = spawnSync(
      process.execPath,
      [require.resolve('prettier/bin/prettier.cjs'), '--check', '.', '--log-level', 'warn', '--cache'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
    process.exit(cli.status ?? 2);
  }
  for (const line of result.broken) console.error(`[error] ${line}`);
  for (const rel of result.unformatted) console.warn(`[warn] ${rel}`);
  const n = result.unformatted.length;
  if (n) console.warn(`[warn] Code style issues found in ${n} file${n > 1 ? 's' : ''}. Run Prettier with --write to fix.`);
  process.exit(result.broken.length ? 2 : n ? 1 : 0);
}

module.exports = { checkFormatting };

if (require.main === module) void main();
