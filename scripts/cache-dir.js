// Where the workspace's tools keep what they computed from the code alone (the type check's and
// lint's clean files, scripts/check-cache.js; SWC's output, scripts/register.js), keyed so that it
// holds for every clone of the same code: the user's cache folder ($ARBITER_CACHE_DIR, else
// $XDG_CACHE_HOME/arbiter or ~/.cache/arbiter), shared by the machine's clones and worktrees as
// Jest's and Go's caches are. Where that folder cannot be written, the checkout's
// node_modules/.cache/arbiter.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The cache folder for the checkout at `root`. */
function cacheDir(root) {
  const home = process.env.ARBITER_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'arbiter');
  try {
    fs.mkdirSync(home, { recursive: true });
    fs.accessSync(home, fs.constants.W_OK);
    return home;
  } catch {
    return path.join(root, 'node_modules', '.cache', 'arbiter');
  }
}

module.exports = { cacheDir };
