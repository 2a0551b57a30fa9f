/**
 * The records of `npm test`'s type check and lint (scripts/check-cache.js): a file's key changes
 * with anything its findings can depend on, and only what a run found clean is kept.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

interface Cache {
  keysOf(tsModule: typeof ts, program: ts.Program, project: string): Map<string, string>;
  clean(check: string, file: string, key: string): boolean;
  found(check: string, file: string, key: string): void;
  save(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of the workspace, not a package
const { CheckCache } = require('../../../scripts/check-cache') as { CheckCache: new (root: string, name: string) => Cache };

describe('the check records (scripts/check-cache.js)', () => {
  let root: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  /** Each file's key, by its name relative to the workspace. */
  const keys = (): Record<string, string> => {
    const options: ts.CompilerOptions = { strict: true, noEmit: true, types: [] };
    const names = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/globals.d.ts'].map((f) => path.join(root, f));
    const program = ts.createProgram({ rootNames: names, options });
    const found = new CheckCache(root, 'test').keysOf(ts, program, 'tsconfig.json');
    return Object.fromEntries([...found].map(([f, k]) => [path.relative(root, f), k]));
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-check-cache-'));
    write('package.json', '{"name":"w"}');
    write('tsconfig.json', '{"compilerOptions":{"strict":true}}');
    write('src/a.ts', "import { b } from './b';\nexport const a = b + 1;\n");
    write('src/b.ts', "import { c } from './c';\nexport const b: number = c;\n");
    write('src/c.ts', 'export const c = 1;\n');
    write('src/d.ts', 'export const d = 1;\n');
    write('src/globals.d.ts', 'declare const BUILD: string;\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('changes the key of a file and of every file that imports it, directly or not, and of no other', () => {
    const before = keys();
    write('src/b.ts', "import { c } from './c';\nexport const b: number = c + 0;\n");
    const after = keys();
    expect(after['src/b.ts']).not.toBe(before['src/b.ts']);
    expect(after['src/a.ts']).not.toBe(before['src/a.ts']);
    expect(after['src/c.ts']).toBe(before['src/c.ts']);
    expect(after['src/d.ts']).toBe(before['src/d.ts']);
    write('src/c.ts', 'export const c = 2;\n');
    const later = keys();
    for (const f of ['src/a.ts', 'src/b.ts', 'src/c.ts']) expect(later[f]).not.toBe(after[f]);
    expect(later['src/d.ts']).toBe(after['src/d.ts']);
  });

  it('changes every key with a global declaration (or a module augmentation), a tsconfig or a package.json', () => {
    const changes: Array<[string, string]> = [
      ['src/globals.d.ts', 'declare const BUILD: number;\n'],
      ['src/c.ts', 'export const c = 1;\ndeclare global {\n  const STAGE: string;\n}\n'],
      ['src/c.ts', 'export const c = 1;\ndeclare global {\n  const STAGE: number;\n}\n'],
      ['tsconfig.json', '{"compilerOptions":{"strict":false}}'],
      ['libs/x/package.json', '{"name":"x","exports":{"./y":"./y.ts"}}'],
    ];
    for (const [file, text] of changes) {
      const before = keys();
      write(file, text);
      const after = keys();
      // d.ts imports nothing: it sees what changed only as a global.
      for (const f of ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']) expect(after[f]).not.toBe(before[f]);
    }
  });

  it('keeps what a run found clean, and only that, for the next run', () => {
    const first = new CheckCache(root, 'test');
    expect(first.clean('lint', '/w/a.ts', 'k1')).toBe(false);
    first.found('lint', '/w/a.ts', 'k1');
    first.found('lint', '/w/b.ts', 'k2');
    first.save();
    const second = new CheckCache(root, 'test');
    expect(second.clean('lint', '/w/a.ts', 'k1')).toBe(true);
    expect(second.clean('lint', '/w/a.ts', 'other inputs')).toBe(false);
    expect(second.clean('types', '/w/a.ts', 'k1')).toBe(false);
    // b.ts was not found clean by this run (its finding printed): the next run checks it again.
    second.save();
    const third = new CheckCache(root, 'test');
    expect(third.clean('lint', '/w/a.ts', 'k1')).toBe(true);
    expect(third.clean('lint', '/w/b.ts', 'k2')).toBe(false);
  });
});
