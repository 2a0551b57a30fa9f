import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { casesIn } from './cases';

// Three files in a folder: two cases, each asserting the describe it runs in, and a file that is
// not a case (loading it would fail this file).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-cases-'));
const ran: string[] = [];
(globalThis as { ranCases?: string[] }).ranCases = ran;
for (const name of ['second', 'first'])
  fs.writeFileSync(
    path.join(dir, `${name}.cases.ts`),
    `it('runs', () => {
      (globalThis as { ranCases?: string[] }).ranCases?.push('${name}');
      expect(expect.getState().currentTestName).toBe('${name} runs');
    });\n`,
  );
fs.writeFileSync(path.join(dir, 'helper.ts'), "throw new Error('not a case');\n");
casesIn(dir);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cases of a folder in one test file', () => {
  it('ran each case in a describe named for its file, in name order, and nothing else', () => {
    expect(ran).toEqual(['first', 'second']);
  });

  it('refuses a folder without cases', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-no-cases-'));
    expect(() => casesIn(empty)).toThrow(/no \*\.cases\.ts files/);
    fs.rmdirSync(empty);
  });
});
