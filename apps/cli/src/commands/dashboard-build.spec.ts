import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DashboardBuilds, KEPT_BUILDS, KEY_FILE } from './dashboard-build';

/** A workspace with a dashboard and its contracts under `root`. */
function workspace(root: string): void {
  const files: Record<string, string> = {
    'package-lock.json': '{"lockfileVersion":3}',
    'apps/dashboard/package.json': '{"name":"@arbiter/dashboard"}',
    'apps/dashboard/proxy.ts': 'export const proxy = 1;',
    'apps/dashboard/app/page.tsx': 'export default function Page() { return null; }',
    'apps/dashboard/test/e2e/page.spec.ts': 'test("x", () => undefined);',
    'libs/contracts/package.json': '{"name":"@arbiter/contracts"}',
    'libs/contracts/src/index.ts': 'export const A = 1;',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
}

describe('DashboardBuilds', () => {
  let tmp: string;
  let cache: string;
  const builds: string[] = [];
  let failBuild = false;

  /** The builds of the workspace at `root`, with a build that writes what `next build` does (and names its folder). */
  const buildsOf = (root: string) =>
    new DashboardBuilds({
      root,
      dashboardDir: path.join(root, 'apps', 'dashboard'),
      cacheDir: cache,
      log: () => undefined,
      build: () => {
        builds.push(root);
        if (failBuild) throw new Error('the dashboard build failed');
        const out = path.join(root, 'apps', 'dashboard', '.next');
        fs.mkdirSync(path.join(out, 'server', 'app'), { recursive: true });
        fs.mkdirSync(path.join(out, 'cache'), { recursive: true });
        fs.writeFileSync(path.join(out, 'server', 'app', 'page.js'), fs.readFileSync(path.join(root, 'apps/dashboard/app/page.tsx')));
        fs.writeFileSync(path.join(out, 'required-server-files.json'), JSON.stringify({ appDir: path.join(root, 'apps', 'dashboard') }));
        fs.writeFileSync(path.join(out, 'cache', 'turbopack'), 'checkout-local');
        fs.writeFileSync(path.join(out, 'BUILD_ID'), `build-${builds.length}`);
        // As `next build` does: beside the sources, not one of them.
        fs.writeFileSync(path.join(root, 'apps', 'dashboard', 'next-env.d.ts'), `/// <reference types="next" /> ${builds.length}`);
        fs.writeFileSync(path.join(root, 'apps', 'dashboard', 'tsconfig.tsbuildinfo'), `${builds.length}`);
      },
    });
  const read = (root: string, file: string) => fs.readFileSync(path.join(root, 'apps', 'dashboard', '.next', file), 'utf8');

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-dashboard-build-'));
    cache = path.join(tmp, 'cache');
    builds.length = 0;
    failBuild = false;
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('builds once per sources: a second ensure finds the build current', () => {
    const root = path.join(tmp, 'one');
    workspace(root);
    expect(buildsOf(root).ensure()).toBe('built');
    expect(buildsOf(root).ensure()).toBe('current');
    expect(builds).toEqual([root]);
    expect(read(root, KEY_FILE).trim()).toBe(buildsOf(root).key());
  });

  it("copies another checkout's build of the same sources instead of building, naming its own folder", () => {
    const [one, two] = [path.join(tmp, 'one'), path.join(tmp, 'two')];
    workspace(one);
    workspace(two);
    buildsOf(one).ensure();
    fs.mkdirSync(path.join(two, 'apps/dashboard/.next/cache'), { recursive: true });
    fs.writeFileSync(path.join(two, 'apps/dashboard/.next/cache/own'), 'kept');

    expect(buildsOf(two).ensure()).toBe('restored');
    expect(builds).toEqual([one]);
    expect(read(two, 'BUILD_ID')).toBe(read(one, 'BUILD_ID'));
    expect(read(two, 'server/app/page.js')).toBe(read(one, 'server/app/page.js'));
    expect(JSON.parse(read(two, 'required-server-files.json'))).toEqual({ appDir: path.join(two, 'apps', 'dashboard') });
    // Next.js's own cache is the checkout's: neither copied from the other nor removed.
    expect(read(two, 'cache/own')).toBe('kept');
    expect(fs.existsSync(path.join(two, 'apps/dashboard/.next/cache/turbopack'))).toBe(false);
    expect(buildsOf(two).ensure()).toBe('current');
  });

  it('builds again when what the build reads changes, not when a file is only touched or a test changes', () => {
    const root = path.join(tmp, 'one');
    workspace(root);
    buildsOf(root).ensure();
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'apps/dashboard/app/page.tsx'), later, later);
    fs.appendFileSync(path.join(root, 'apps/dashboard/test/e2e/page.spec.ts'), '\n// more');
    expect(buildsOf(root).ensure()).toBe('current');

    for (const file of ['apps/dashboard/proxy.ts', 'libs/contracts/src/index.ts', 'package-lock.json', 'apps/dashboard/app/page.tsx']) {
      fs.appendFileSync(path.join(root, file), '\n// changed');
      expect(buildsOf(root).ensure()).toBe('built');
    }
    expect(builds).toHaveLength(5);
  });

  it('keeps nothing of a failed build, and the next ensure builds again', () => {
    const root = path.join(tmp, 'one');
    workspace(root);
    failBuild = true;
    expect(() => buildsOf(root).ensure()).toThrow('the dashboard build failed');
    expect(fs.existsSync(cache) ? fs.readdirSync(cache) : []).toEqual([]);
    expect(buildsOf(root).current()).toBe(false);

    failBuild = false;
    expect(buildsOf(root).ensure()).toBe('built');
    expect(builds).toHaveLength(2);
  });

  it(`keeps the ${KEPT_BUILDS} most recently used builds`, () => {
    const root = path.join(tmp, 'one');
    workspace(root);
    const keys: string[] = [];
    for (let i = 0; i <= KEPT_BUILDS; i++) {
      fs.writeFileSync(path.join(root, 'apps/dashboard/app/page.tsx'), `export const version = ${i};`);
      keys.push(buildsOf(root).key());
      buildsOf(root).ensure();
      // Each a second older than the next, whatever the file system's timestamp resolution.
      const used = new Date(Date.now() - (KEPT_BUILDS - i) * 1000);
      fs.utimesSync(path.join(cache, keys[i]), used, used);
    }
    expect(fs.readdirSync(cache).sort()).toEqual(keys.slice(1).sort());
  });
});
