// What `npm test`'s type check and lint (scripts/typecheck-lint.js) found clean before, so that a
// later run checks again only what could have changed.
//
// A file's key is a hash of everything its findings can depend on: the file, every workspace file
// it imports (transitively: a type it sees may come from any of them), the program's global
// declarations, the settings of the program and of ESLint (every tsconfig, package.json and the
// lock file, which pins TypeScript, ESLint and their rules), and this script and its caller. A file
// whose key is the one recorded when it was last found clean is clean now: the same inputs give the
// same findings. Only clean files are recorded, so a finding is printed again on every run until it
// is fixed. The records live in node_modules/.cache/arbiter (a fresh clone, as in CI, checks all).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

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

class CheckCache {
  /** `name`: whose records these are (a share of the work keeps its own). */
  constructor(root, name) {
    this.file = path.join(root, 'node_modules', '.cache', 'arbiter', `checks-${name}.json`);
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
    try {
      this.records = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      this.records = {};
    }
    this.next = {};
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
      .map((sf) => `${sf.fileName}\0${hash.get(sf.fileName)}`)
      .sort()
      .join('\n');
    const base = sha(`${this.settings}\0${project}\0${globals}`);
    const keys = new Map();
    for (const sf of own) {
      const reached = new Set([sf.fileName]);
      const stack = [sf.fileName];
      while (stack.length) for (const next of edges.get(stack.pop()) ?? []) if (!reached.has(next) && reached.add(next)) stack.push(next);
      const parts = [...reached].sort().map((f) => `${f}\0${hash.get(f)}`);
      keys.set(sf.fileName, sha(`${base}\0${parts.join('\n')}`));
    }
    return keys;
  }

  /** Whether `file` was found clean by `check` with these inputs. */
  clean(check, file, key) {
    const known = this.records[check]?.[file] === key;
    if (known) this.found(check, file, key);
    return known;
  }

  /** `file` is clean for `check` with these inputs. */
  found(check, file, key) {
    (this.next[check] ??= {})[file] = key;
  }

  /** Keeps what this run found clean (and what it took from before): what it did not find clean is checked again next time. */
  save() {
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(this.next));
      fs.renameSync(tmp, this.file);
    } catch {
      // A read-only checkout: everything is checked again next time.
    }
  }
}

module.exports = { CheckCache };
