/**
 * The dashboard's production build (`next build` into apps/dashboard/.next), made when the
 * checkout has none of its current sources, and kept in the user's cache folder
 * (scripts/cache-dir.js: ~/.cache/arbiter/dashboard) under a key of those sources, so that every
 * clone of the same code on the machine (CI's fresh clones, worktrees) copies it in a moment
 * instead of building it again: 20 to 30 s of CPU, 12 to 50 s of `npm start`'s first run.
 *
 * The key is a hash of what the build reads: the dashboard's files (its tests and the files the
 * build writes there aside), the wire contracts it compiles (libs/contracts), the lock file that
 * fixes Next.js and React, and Node.js's major version. A build records its key in `.next/arbiter-build-key`; the checkout's build is
 * current when that key is the sources' key (a touched file rebuilds nothing; a changed one does).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The file in the build folder naming the key of the sources it was made from. */
export const KEY_FILE = 'arbiter-build-key';

/** The file Next.js writes last; a build folder without it is no build. */
const BUILD_ID = 'BUILD_ID';

/** Next.js's own cache for its next build: stays in the checkout, never kept. */
const NEXT_CACHE = 'cache';

/** Files of the build that name the workspace's absolute path (made portable on restore). */
const ROOTED = ['required-server-files.json', 'required-server-files.js'];

/** The file in a kept build naming the workspace it was made in (replaced by the checkout's in ROOTED files). */
const ROOT_FILE = 'arbiter-build-root';

/** How many builds of different sources the cache keeps (the most recently used). */
export const KEPT_BUILDS = 3;

export interface DashboardBuildsOptions {
  /** The workspace root (the lock file's folder). */
  root: string;
  /** apps/dashboard. */
  dashboardDir: string;
  /** Where kept builds live (one folder per key). */
  cacheDir: string;
  /** Makes the build in `dashboardDir/.next`; throws when it fails. */
  build(): void;
  log(line: string): void;
}

export class DashboardBuilds {
  private readonly out: string;

  constructor(private readonly options: DashboardBuildsOptions) {
    this.out = path.join(options.dashboardDir, '.next');
  }

  /** The key of the sources as they are now. */
  key(): string {
    const { root, dashboardDir } = this.options;
    const hash = createHash('sha256').update(`node ${process.versions.node.split('.')[0]}\0`);
    const add = (file: string) =>
      hash
        .update(`${path.relative(root, file)}\0`)
        .update(fs.readFileSync(file))
        .update('\0');
    // Not inputs: the build's output, the tests, and what the build itself writes (next-env.d.ts, TypeScript's build info).
    const skip = new Set(['.next', 'node_modules', 'test', 'next-env.d.ts'].map((p) => path.join(dashboardDir, p)));
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const file = path.join(dir, entry.name);
        if (skip.has(file) || entry.name.endsWith('.tsbuildinfo')) continue;
        if (entry.isDirectory()) walk(file);
        else if (entry.isFile()) add(file);
      }
    };
    walk(dashboardDir);
    const contracts = path.join(root, 'libs', 'contracts');
    if (fs.existsSync(contracts)) walk(path.join(contracts, 'src'));
    for (const file of [path.join(contracts, 'package.json'), path.join(root, 'package-lock.json')]) if (fs.existsSync(file)) add(file);
    return hash.digest('hex').slice(0, 32);
  }

  /** True when the checkout's build was made from the sources as they are now. */
  current(key = this.key()): boolean {
    try {
      return fs.existsSync(path.join(this.out, BUILD_ID)) && fs.readFileSync(path.join(this.out, KEY_FILE), 'utf8').trim() === key;
    } catch {
      return false;
    }
  }

  /**
   * Makes the checkout's build current: nothing when it is; else a kept build of the same sources
   * copied in; else `next build`, whose output is then kept. Returns what it did.
   */
  ensure(): 'current' | 'restored' | 'built' {
    const key = this.key();
    if (this.current(key)) return 'current';
    const kept = path.join(this.options.cacheDir, key);
    if (fs.existsSync(path.join(kept, BUILD_ID)) && this.restore(kept, key)) {
      this.options.log(`the dashboard's production build of these sources, made by another checkout: copied from ${kept}`);
      return 'restored';
    }
    this.options.log('building the dashboard (production build; about a minute, once)...');
    this.clear();
    this.options.build();
    fs.writeFileSync(path.join(this.out, KEY_FILE), `${key}\n`);
    this.keep(kept, key);
    return 'built';
  }

  /** Removes the checkout's build (Next.js's own cache stays): BUILD_ID first, so a half-removed build is no build. */
  private clear(): void {
    fs.rmSync(path.join(this.out, BUILD_ID), { force: true });
    if (!fs.existsSync(this.out)) return;
    for (const entry of fs.readdirSync(this.out))
      if (entry !== NEXT_CACHE) fs.rmSync(path.join(this.out, entry), { recursive: true, force: true });
  }

  /** Copies the kept build at `kept` into the checkout, BUILD_ID last; false (and no build) when the copy fails. */
  private restore(kept: string, key: string): boolean {
    try {
      this.clear();
      fs.mkdirSync(this.out, { recursive: true });
      const from = fs.readFileSync(path.join(kept, ROOT_FILE), 'utf8');
      for (const entry of fs.readdirSync(kept)) {
        if (entry === BUILD_ID || entry === ROOT_FILE) continue;
        fs.cpSync(path.join(kept, entry), path.join(this.out, entry), { recursive: true, preserveTimestamps: true });
      }
      for (const name of ROOTED) {
        const file = path.join(this.out, name);
        if (fs.existsSync(file)) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split(from).join(this.options.root));
      }
      fs.writeFileSync(path.join(this.out, KEY_FILE), `${key}\n`);
      fs.copyFileSync(path.join(kept, BUILD_ID), path.join(this.out, BUILD_ID));
      // Used now: the last to be dropped.
      const now = new Date();
      fs.utimesSync(kept, now, now);
      return true;
    } catch {
      this.clear();
      return false;
    }
  }

  /** Keeps the checkout's build under `kept` (written whole, then renamed in), and drops the least recently used beyond KEPT_BUILDS. */
  private keep(kept: string, key: string): void {
    const tmp = `${kept}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(tmp, { recursive: true });
      for (const entry of fs.readdirSync(this.out))
        if (entry !== NEXT_CACHE)
          fs.cpSync(path.join(this.out, entry), path.join(tmp, entry), { recursive: true, preserveTimestamps: true });
      fs.writeFileSync(path.join(tmp, ROOT_FILE), this.options.root);
      fs.writeFileSync(path.join(tmp, KEY_FILE), `${key}\n`);
      fs.renameSync(tmp, kept);
    } catch {
      // Another checkout kept the same build meanwhile, or the cache cannot be written: built all the same.
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    try {
      const builds = fs
        .readdirSync(this.options.cacheDir)
        .filter((name) => /^[0-9a-f]{32}$/.test(name))
        .map((name) => ({ dir: path.join(this.options.cacheDir, name), used: fs.statSync(path.join(this.options.cacheDir, name)).mtimeMs }))
        .sort((a, b) => b.used - a.used);
      for (const old of builds.slice(KEPT_BUILDS)) fs.rmSync(old.dir, { recursive: true, force: true });
    } catch {
      // Nothing kept to drop.
    }
  }
}
