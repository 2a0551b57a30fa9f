/**
 * What an `arbiter` command loads: only its own module (main.ts, COMMANDS) and what that module
 * imports at the top. An operator command or an agent's start must not pay for zod's schemas,
 * YAML, the allocator or the control plane's settings, which other commands need: every test and
 * every operator's script runs many of them.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { root } from './npx-arbiter';

/** The files a process loaded (its require cache) once `arbiter ARGS` had run and exited with `status`. */
function loaded(args: string[], env: Record<string, string> = {}, status = 0): string[] {
  const script = `require(${JSON.stringify(path.join(root, 'scripts/register'))});
require(${JSON.stringify(path.join(root, 'apps/cli/src/main.ts'))})
  .main(${JSON.stringify(args)})
  .then(() => process.stderr.write(JSON.stringify(Object.keys(require.cache))));`;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  expect(run.status).toBe(status);
  return JSON.parse(run.stderr.slice(run.stderr.lastIndexOf('\n["') + 1)) as string[];
}

const HEAVY = ['/node_modules/zod/', '/node_modules/yaml/', '/libs/allocator/', '/apps/control-plane/', '/libs/modules/'];
const heavy = (files: string[]) => files.filter((f) => HEAVY.some((h) => f.includes(h)));

describe('arbiter: a command loads what it runs', () => {
  it.each(['agents list --help', 'tasks show --help', 'principal create --help', 'agent --help'])(
    '`arbiter %s` loads no schema library, YAML, allocator or control plane',
    (line) => {
      const files = loaded(line.split(' '));
      expect(files.some((f) => f.endsWith(path.join('apps', 'cli', 'src', 'main.ts')))).toBe(true);
      expect(heavy(files)).toEqual([]);
    },
  );

  it('loads them for the commands that use them (help lists every command)', () => {
    expect(heavy(loaded(['--help'])).length).toBeGreaterThan(0);
  });

  it.each(['control-plane', 'start'])('`arbiter %s` with a wrong setting stops before it loads the control plane or NestJS', (command) => {
    const files = loaded([command], { PORT: 'eighty' }, 2);
    expect(files.some((f) => f.includes('/apps/control-plane/src/config/'))).toBe(true);
    expect(files.filter((f) => f.includes('/node_modules/@nestjs/') || f.endsWith('/apps/control-plane/src/main.ts'))).toEqual([]);
  });
});

describe('scripts/register.js: compiled TypeScript kept for every clone of the same code', () => {
  /** A checkout at `dir` with the workspace's register script, its dependencies and one TypeScript file that throws. */
  function checkout(dir: string): string {
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src'));
    for (const f of ['register.js', 'cache-dir.js']) fs.copyFileSync(path.join(root, 'scripts', f), path.join(dir, 'scripts', f));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(
      path.join(dir, 'src', 'boom.ts'),
      "export function boom(): never {\n  const at: string = 'here';\n  throw new Error(at);\n}\n",
    );
    return dir;
  }
  /** Runs src/boom.ts of `dir` with the cache in `cache`: the stack trace's first line in boom.ts. */
  function boom(dir: string, cache: string): string {
    const script = `require('./scripts/register'); require('./src/boom.ts').boom();`;
    const run = spawnSync(process.execPath, ['-e', script], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, ARBITER_CACHE_DIR: cache },
    });
    return /at .*boom \((.*)\)/.exec(run.stderr)?.[1] ?? run.stderr;
  }

  it('compiles a file once for two clones, and each stack trace names its own clone', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-register-'));
    try {
      const cache = path.join(tmp, 'cache');
      const [a, b] = [checkout(path.join(tmp, 'a')), checkout(path.join(tmp, 'b'))];
      expect(boom(a, cache)).toBe(`${path.join(a, 'src', 'boom.ts')}:3:9`);
      const compiled = fs.readdirSync(path.join(cache, 'swc'));
      expect(compiled).toHaveLength(1);
      expect(boom(b, cache)).toBe(`${path.join(b, 'src', 'boom.ts')}:3:9`);
      expect(fs.readdirSync(path.join(cache, 'swc'))).toEqual(compiled);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
