#!/usr/bin/env node
// The type check and ESLint in one process, for `npm test`: the workspace's two TypeScript
// programs (the root tsconfig.json and the dashboard's) are built and checked once, reporting what
// `tsc -p <project> --noEmit` reports, and then handed to ESLint, whose type-aware rules would
// otherwise build and check the same programs again. Exits 1 on a type error or a lint error.
// `npm run typecheck` and `npm run lint` still run tsc and ESLint alone.
const path = require('node:path');
const ts = require('typescript');
const { ESLint } = require('eslint');

const root = path.resolve(__dirname, '..');
/** In the order of eslint.config.mjs's `project`: a file is linted in the first program that holds it. */
const PROJECTS = ['tsconfig.json', 'apps/dashboard/tsconfig.json'];

/** Colours as tsc has them on a terminal (`npm test` pipes this output, and asks for them with FORCE_COLOR). */
const color = Boolean(process.stdout.isTTY || process.env.FORCE_COLOR);
const format = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };

/** The program of a tsconfig file, as `tsc -p` builds it; with the errors in the tsconfig file itself. */
function programOf(project) {
  const configErrors = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, project), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d),
  });
  if (!parsed) return { configErrors };
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    host: ts.createCompilerHost(parsed.options, true),
  });
  return { program, configErrors: [...configErrors, ...parsed.errors] };
}

async function main() {
  let failed = false;
  const programs = [];
  for (const project of PROJECTS) {
    const { program, configErrors } = programOf(project);
    const diagnostics = [...configErrors, ...(program ? ts.getPreEmitDiagnostics(program) : [])];
    if (program) programs.push(program);
    if (diagnostics.length) {
      failed = true;
      console.log(`Type errors (tsc -p ${project} --noEmit):`);
      console.log((color ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics)(diagnostics, format));
    }
  }
  if (programs.length < PROJECTS.length) return 1;

  const eslint = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { programs, project: false, projectService: false } } },
  });
  const results = await eslint.lintFiles(['.']);
  if (results.some((r) => r.errorCount > 0 || r.fatalErrorCount > 0)) failed = true;
  const formatted = await (await eslint.loadFormatter('stylish')).format(results);
  if (formatted) console.log(formatted);
  return failed ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exitCode = 1;
  },
);
