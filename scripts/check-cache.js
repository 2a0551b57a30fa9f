// What `npm test`'s type check and lint (scripts/typecheck-lint.js) found clean before, so that a
// later run checks again only what could have changed.
//
// A file's key is a hash of everything its findings can depend on: the file, every workspace file
// it imports (transitively: a type it sees may come from any of them), the program's global
// declarations, the settings of the program and of ESLint (every tsconfig, package.json and the
// lock file, which pins TypeScript, ESLint and their rules), and this script and its caller. A key
// recorded as clean is clean for good: the same inputs give the same findings. Only clean keys are
// recorded, so a finding is printed again on every run until it is fixed.
//
// Files are named in keys relative to the workspace, so the records hold for every checkout of
// the same code: they live in the user's cache folder (scripts/cache-dir.js), shared by the clones
// and worktrees of the machine (a fresh clone checks only what differs from code checked before).
// Keys not used for RETAIN_DAYS are dropped, and the least recently used beyond MAX_KEYS.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { cacheDir } = require('./cache-dir');

/** Records not used for this many days are dropped. */
const RETAIN_DAYS = 30;
/** At most this many records per check are kept, the most recently used (about twenty versions of every file). */
const MAX_KEYS = 20_000;

const sha = (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The files whose content every key includes: the settings of TypeScript, ESLint and the packages, and the checker's own code. */
function settingsFiles(root) {
  const found = [
    'package-lock.json',
    'eslint.config.mjs',
    path.join('scripts', 'typecheck-lint.js'),
    path.join('scripts', 'check-cache.js'),
  ];
  const walk = (dir, depth) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory() && depth > 0 && !['node_modules', '.git', '.next', 'dist', 'reports'].includes(entry.name))
        walk(rel, depth - 1);
      else if (entry.isFile() && (entry.name === 'package.json' || /^tsconfig.*\.json$/.test(entry.name))) found.push(rel);
    }
  };
  // The workspace's packages and their tsconfig files: apps/<name>, libs/<name> and top-level folders.
  walk('.', 2);
  return found.sort();
}

/** Today, in days since the epoch (when a record was last used). */
const today = () => Math.floor(Date.now() / 86_400_000);

/** The records in `file`: for each check, each clean key with the day it was last used (those not used for RETAIN_DAYS left out). */
function read(file) {
  let stored;
  try {
    stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  const checks = stored?.version === 2 && typeof stored.checks === 'object' ? stored.checks : {};
  const since = today() - RETAIN_DAYS;
  for (const keys of Object.values(checks)) for (const [key, used] of Object.entries(keys)) if (!(used > since)) delete keys[key];
  return checks;
}

class CheckCache {
  /** `name`: whose records these are (a share of the work keeps its own); `dir`: where they live (see cacheDir). */
  constructor(root, name, dir = cacheDir(root)) {
    this.root = root;
    this.file = path.join(dir, `checks-${name}.json`);
    this.settings = sha(
      settingsFiles(root)
        .map((f) => {
          try {
            return `${f}\0${sha(fs.readFileSync(path.join(root, f)))}`;
          } catch {
            return `${f}\0missing`;
          }
        })
        .join('\n'),
    );
    this.records = read(this.file);
    /** The keys this run found clean or used, by check. */
    this.used = {};
  }

  /**
   * The key of each workspace source file of `program` (a TypeScript program of `project`): the
   * file's content and that of every workspace file it reaches through its imports, the program's
   * global declarations and the settings.
   */
  keysOf(ts, program, project) {
    const own = program
      .getSourceFiles()
      .filter((sf) => !program.isSourceFileDefaultLibrary(sf) && !program.isSourceFileFromExternalLibrary(sf));
    const hash = new Map(own.map((sf) => [sf.fileName, sha(sf.text)]));
    const named = (f) => `${path.relative(this.root, f).split(path.sep).join('/')}\0${hash.get(f)}`;
    const edges = new Map();
    for (const sf of own) {
      const to = new Set();
      for (const literal of sf.imports ?? []) {
        const target = program.getResolvedModuleFromModuleSpecifier(literal, sf)?.resolvedModule?.resolvedFileName;
        if (target && hash.has(target)) to.add(target);
      }
      for (const ref of sf.referencedFiles) {
        const target = path.resolve(path.dirname(sf.fileName), ref.fileName);
        if (hash.has(target)) to.add(target);
      }
      edges.set(sf.fileName, to);
    }
    // Declarations without imports or exports are global, and so are a module's `declare global`
    // and augmentations of other modules (`declare module 'x'`): any file may see them.
    const globals = own
      .filter((sf) => !ts.isExternalModule(sf) || /\bdeclare\s+(global|module)\b/.test(sf.text))
      .map((sf) => named(sf.fileName))
      .sort()
      .join('\n');
    const base = sha(`${this.settings}\0${project}\0${globals}`);
    const keys = new Map();
    for (const sf of own) {
      const reached = new Set([sf.fileName]);
      const stack = [sf.fileName];
      while (stack.length) for (const next of edges.get(stack.pop()) ?? []) if (!reached.has(next) && reached.add(next)) stack.push(next);
      const parts = [...reached].map(named).sort();
      // The file itself first: two files that import each other reach the same files.
      keys.set(sf.fileName, sha(`${base}\0${named(sf.fileName)}\0${parts.join('\n')}`));
    }
    return keys;
  }

  /** Whether a file with this key was found clean by `check` (in any checkout of the same code). */
  clean(check, key) {
    const known = this.records[check]?.[key] !== undefined;
    if (known) this.found(check, key);
    return known;
  }

  /** A file with this key is clean for `check`. */
  found(check, key) {
    (this.used[check] ??= new Set()).add(key);
  }

  /**
   * Adds what this run found clean to the records as they are now (another checkout may have
   * added some meanwhile) and marks what it used as used today.
   */
  save() {
    const records = read(this.file);
    const day = today();
    for (const [check, keys] of Object.entries(this.used)) for (const key of keys) (records[check] ??= {})[key] = day;
    for (const [check, keys] of Object.entries(records)) {
      const entries = Object.entries(keys);
      if (entries.length > MAX_KEYS) records[check] = Object.fromEntries(entries.sort((a, b) => b[1] - a[1]).slice(0, MAX_KEYS));
    }
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ version: 2, checks: records }));
      fs.renameSync(tmp, this.file);
    } catch {
      // Not writable: everything is checked again next time.
    }
  }
}

module.exports = { CheckCache };
