import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Runs the test cases of a folder (its `*.cases.ts` files, in name order) in one Jest test file,
 * each in a `describe` named for its file: `jest <folder> -t '^<file name> '` runs one of them.
 *
 * Jest loads a test file's modules afresh: an integration file loads NestJS, TypeORM and the
 * control plane again, about 1 s of CPU on a fast machine before its first test (2 s on a slow
 * one), which cases sharing a file load once. What a case builds is its own as before: its
 * hooks are scoped to its `describe`, and every control plane it starts gets a fresh database.
 */
export function casesIn(dir: string): void {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cases.ts'))
    .sort();
  if (!files.length) throw new Error(`no *.cases.ts files in ${dir}`);
  for (const file of files)
    describe(file.slice(0, -'.cases.ts'.length), () => {
      // A case registers its tests as its module runs.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(path.join(dir, file));
    });
}
