/**
 * The records of `npm test`'s type check and lint (scripts/check-cache.js): a file's key changes
 * with anything its findings can depend on and with nothing else (not the checkout's folder), and
 * only what a run found clean is kept.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

interface Cache {
  keysOf(tsModule: typeof ts, program: ts.Program, project: string): Map<string, string>;
  clean(check: string, key: string): boolean;
  found(check: string, key: string): void;
  save(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of the workspace, not a package
const { CheckCache } = require('../../../scripts/check-cache') as { CheckCache: new (root: string, name: string, dir?: string) => Cache };

describe('the check records (scripts/check-cache.js)', () => {
  let root: string;
  /** Where the records are kept (the user's cache folder in use). */
  let records: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  /** Each file's key, by its name relative to the workspace. */
  const keys = (at = root): Record<string, string> => {
    const options: ts.CompilerOptions = { strict: true, noEmit: true, types: [] };
    const names = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/e.ts', 'src/globals.d.ts'].map((f) => path.join(at, f));
    const program = ts.createProgram({ rootNames: names, options });
    const found = new CheckCache(at, 'test', records).keysOf(ts, program, 'tsconfig.json');
    return Object.fromEntries([...found].map(([f, k]) => [path.relative(at, f), k]));
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-check-cache-'));
    records = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-check-records-'));
    write('package.json', '{"name":"w"}');
    write('tsconfig.json', '{"compilerOptions":{"strict":true}}');
    write('src/a.ts', "import { b } from './b';\nexport const a = b + 1;\n");
    write('src/b.ts', "import { c } from './c';\nexport const b: number = c;\n");
    write('src/c.ts', 'export const c = 1;\n');
    write('src/d.ts', "import { e } from './e';\nexport const d = e;\n");
    write('src/e.ts', "import { d } from './d';\nexport const e = 1;\nexport const twice = (): number => d * 2;\n");
    write('src/globals.d.ts', 'declare const BUILD: string;\n');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(records, { recursive: true, force: true });
  });

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
      // d.ts and e.ts import none of the others: they see what changed only as a global.
      for (const f of ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']) expect(after[f]).not.toBe(before[f]);
    }
  });

  it('gives the same keys to the same code in another checkout, and different keys to two files that import each other', () => {
    const here = keys();
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-check-cache-other-'));
    try {
      fs.cpSync(root, other, { recursive: true });
      expect(keys(other)).toEqual(here);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
    // d.ts and e.ts reach the same files; a finding in one must not pass for the other's.
    expect(here['src/d.ts']).not.toBe(here['src/e.ts']);
  });

  it('keeps what a run found clean, and only that, for the next run in any checkout', () => {
    const first = new CheckCache(root, 'test', records);
    expect(first.clean('lint', 'k1')).toBe(false);
    first.found('lint', 'k1');
    first.save();
    const second = new CheckCache(root, 'test', records);
    expect(second.clean('lint', 'k1')).toBe(true);
    expect(second.clean('lint', 'other inputs')).toBe(false);
    expect(second.clean('types', 'k1')).toBe(false);
    // Another checkout adds its own meanwhile: both are kept.
    const elsewhere = new CheckCache(path.join(root, 'src'), 'test', records);
    elsewhere.found('types', 'k2');
    elsewhere.save();
    second.found('lint', 'k3');
    second.save();
    const third = new CheckCache(root, 'test', records);
    for (const [check, key] of [
      ['lint', 'k1'],
      ['types', 'k2'],
      ['lint', 'k3'],
    ])
      expect(third.clean(check, key)).toBe(true);
    expect(third.clean('lint', 'k2')).toBe(false);
  });

  it('keeps the 20,000 most recently used records of a check', () => {
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now - 86_400_000);
    const before = new CheckCache(root, 'test', records);
    for (let i = 0; i < 20_000; i++) before.found('lint', `old-${i}`);
    before.save();
    jest.spyOn(Date, 'now').mockReturnValue(now);
    const today = new CheckCache(root, 'test', records);
    for (let i = 0; i < 10; i++) today.found('lint', `new-${i}`);
    today.save();
    const after = new CheckCache(root, 'test', records);
    expect(after.clean('lint', 'new-0') && after.clean('lint', 'new-9')).toBe(true);
    expect([...Array(20_000).keys()].filter((i) => after.clean('lint', `old-${i}`))).toHaveLength(19_990);
    jest.restoreAllMocks();
  });

  it('drops records not used for 30 days', () => {
    const now = Date.now();
    const at = (days: number) => jest.spyOn(Date, 'now').mockReturnValue(now + days * 86_400_000);
    at(0);
    const first = new CheckCache(root, 'test', records);
    first.found('lint', 'old');
    first.found('lint', 'used');
    first.save();
    at(20);
    const second = new CheckCache(root, 'test', records);
    expect(second.clean('lint', 'used')).toBe(true);
    second.save();
    at(35);
    const third = new CheckCache(root, 'test', records);
    expect(third.clean('lint', 'used')).toBe(true);
    expect(third.clean('lint', 'old')).toBe(false);
    jest.restoreAllMocks();
  });
});
