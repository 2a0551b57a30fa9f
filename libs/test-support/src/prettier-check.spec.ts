/**
 * `npm test`'s formatting check (scripts/prettier-check.js): what `prettier --check .` reports, but
 * a file found formatted before with the same content and settings, in any clone on the machine,
 * is not checked again.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface Result {
  unformatted: string[];
  broken: string[];
  checked: number;
}

const SCRIPT = path.resolve(__dirname, '../../../scripts/prettier-check.js');

/**
 * The script's check of `root` with its records in `cacheDir`, in a Node.js process of its own
 * (Prettier loads its core as an ES module, which Jest's module system does not).
 */
const checkFormatting = (root: string, cacheDir: string): Result => {
  const code = `require(${JSON.stringify(SCRIPT)}).checkFormatting(process.argv[1], process.argv[2]).then((r) => console.log(JSON.stringify(r)))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', code, root, cacheDir], { encoding: 'utf8' })) as Result;
};

describe('the formatting check (scripts/prettier-check.js)', () => {
  let tmp: string;
  let root: string;
  /** Where the records are kept (the user's cache folder in use). */
  let records: string;
  const write = (file: string, text: string, at = root) => {
    fs.mkdirSync(path.dirname(path.join(at, file)), { recursive: true });
    fs.writeFileSync(path.join(at, file), text);
  };

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-prettier-check-'));
    root = path.join(tmp, 'one');
    records = path.join(tmp, 'records');
    write('package.json', '{\n  "name": "w"\n}\n');
    write('.prettierrc.json', '{ "singleQuote": true }\n');
    write('.prettierignore', 'generated\n');
    write('.gitignore', 'out\n');
    write('src/good.ts', "export const a = 'x';\n");
    write('src/bad.ts', 'export const  a = "x"\n');
    write('docs/notes.md', '# Notes\n\n- one\n');
    write('generated/bad.ts', 'export const  a = "x"\n');
    write('out/bad.ts', 'export const  a = "x"\n');
    write('data.bin', 'not a language Prettier knows');
    execFileSync('git', ['init', '-q'], { cwd: root });
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reports what prettier --check . reports, skipping what its ignore files and .gitignore leave out', () => {
    expect(checkFormatting(root, records)).toEqual({ unformatted: ['src/bad.ts'], broken: [], checked: 5 });
  });

  it('checks again only what is new or unformatted, in this clone or another of the same files', () => {
    checkFormatting(root, records);
    // The unformatted file is reported again; the formatted ones (package.json, the rc file, two sources) are not read by Prettier.
    expect(checkFormatting(root, records)).toEqual({ unformatted: ['src/bad.ts'], broken: [], checked: 1 });

    const two = path.join(tmp, 'two');
    fs.cpSync(root, two, { recursive: true });
    write('src/new.ts', 'export const  b = 1\n', two);
    expect(checkFormatting(two, records)).toEqual({ unformatted: ['src/bad.ts', 'src/new.ts'], broken: [], checked: 2 });
  });

  it("checks everything again when Prettier's settings change, and names a file it cannot parse", () => {
    checkFormatting(root, records);
    write('.prettierrc.json', '{ "singleQuote": false }\n');
    write('src/broken.ts', 'export const a = (\n');
    const result = checkFormatting(root, records);
    expect(result.checked).toBe(6);
    expect(result.unformatted).toEqual(['src/bad.ts', 'src/good.ts']);
    expect(result.broken).toEqual([expect.stringMatching(/^src\/broken\.ts: /)]);
  });
});
