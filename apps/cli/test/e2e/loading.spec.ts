/**
 * What an `arbiter` command loads: only its own module (main.ts, COMMANDS) and what that module
 * imports at the top. An operator command or an agent's start must not pay for zod's schemas,
 * YAML, the allocator or the control plane's settings, which other commands need: every test and
 * every operator's script runs many of them.
 */
import { spawnSync } from 'node:child_process';
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
