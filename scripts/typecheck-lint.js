#!/usr/bin/env node
// The type check and ESLint in one process, for `npm test`: the workspace's two TypeScript
// programs (the root tsconfig.json and the dashboard's) are built and checked once, reporting what
// `tsc -p <project> --noEmit` reports, and then handed to ESLint, whose type-aware rules would
// otherwise build and check the same programs again. Exits 1 on a type error or a lint error.
// `npm run typecheck` and `npm run lint` still run tsc and ESLint alone.
//
// `--part I/N` (1 <= I <= N) does the I-th of N shares of the work, so that N processes share it
// on N cores: the packages (apps/<name>, libs/<name>, and each other top-level folder) are dealt
// out by the size of their TypeScript sources, largest first, each to the share with the least so
// far; a share type-checks and lints its packages' files only (building each program that holds
// one of them: a package's checks need the types of what it imports). The program-wide findings
// (its options, global types, the sources it imports from outside its own files) are reported by
// the first share that builds it. Together the N shares report what one process does.
//
// A file found clean before with the same inputs (itself, what it imports, the settings: see
// scripts/check-cache.js) is not type-checked or linted again.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { ESLint } = require('eslint');
const { CheckCache } = require('./check-cache');

const root = path.resolve(__dirname, '..');
/** In the order of eslint.config.mjs's `project`: a file is linted in the first program that holds it. */
const PROJECTS = ['tsconfig.json', 'apps/dashboard/tsconfig.json'];

/** Colours as tsc has them on a terminal (`npm test` pipes this output, and asks for them with FORCE_COLOR). */
const color = Boolean(process.stdout.isTTY || process.env.FORCE_COLOR);
const format = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };

/** This process's share: `--part I/N`, or the whole. */
function share() {
  const at = process.argv.indexOf('--part');
  if (at < 0) return { index: 0, count: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(process.argv[at + 1] ?? '');
  const [index, count] = m ? [Number(m[1]) - 1, Number(m[2])] : [-1, 0];
  if (!(count >= 1 && index >= 0 && index < count)) throw new Error(`--part wants I/N with 1 <= I <= N, not ${process.argv[at + 1]}`);
  return { index, count };
}

/** A tsconfig file as `tsc -p` reads it: its files and options, and the errors in it. */
function configOf(project) {
  const configErrors = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, project), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d),
  });
  return { project, parsed, configErrors: [...configErrors, ...(parsed?.errors ?? [])] };
}

/** The package a file belongs to: apps/<name>, libs/<name>, or its top-level folder. */
function packageOf(file) {
  const parts = path.relative(root, file).split(path.sep);
  return ['apps', 'libs'].includes(parts[0]) && parts.length > 2 ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages dealt out to `count` shares by the size of their files, largest first, each to the lightest share. */
function dealt(files, count) {
  const sizes = new Map();
  for (const f of files) sizes.set(packageOf(f), (sizes.get(packageOf(f)) ?? 0) + fs.statSync(f).size);
  const loads = Array.from({ length: count }, () => 0);
  const shareOf = new Map();
  for (const [pkg, size] of [...sizes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    const lightest = loads.indexOf(Math.min(...loads));
    shareOf.set(pkg, lightest);
    loads[lightest] += size;
  }
  return shareOf;
}

async function main() {
  const { index, count } = share();
  const configs = PROJECTS.map(configOf);
  // Each file in the first program that holds it, as ESLint takes it.
  const owner = new Map();
  for (const c of configs) for (const f of c.parsed?.fileNames ?? []) if (!owner.has(f)) owner.set(f, c.project);
  const shareOf = dealt([...owner.keys()], count);
  const mine = (f) => shareOf.get(packageOf(f)) === index;
  let failed = false;
  let unread = false;
  const programs = [];
  const files = [];
  const cache = new CheckCache(root, `${index + 1}-of-${count}`);
  /** The inputs' key of each file this share lints. */
  const lintKeys = new Map();
  for (const { project, parsed, configErrors } of configs) {
    const held = (parsed?.fileNames ?? []).filter((f) => owner.get(f) === project);
    const ours = held.filter(mine);
    const heldSet = new Set(held);
    // The first share with a file of this program reports what concerns the whole program.
    const whole = held.length ? Math.min(...held.map((f) => shareOf.get(packageOf(f)))) === index : index === 0;
    if (!parsed) {
      if (whole) report(project, configErrors);
      unread = true;
      continue;
    }
    if (!ours.length && !whole) continue;
    const program = ts.createProgram({
      rootNames: parsed.fileNames,
      options: parsed.options,
      projectReferences: parsed.projectReferences,
      host: ts.createCompilerHost(parsed.options, true),
    });
    programs.push(program);
    files.push(...ours);
    const keys = cache.keysOf(ts, program, project);
    for (const f of ours) lintKeys.set(f, keys.get(f));
    // Its files of this share; the first share also checks what the program holds besides its own
    // files (sources it imports from elsewhere, checked with its settings), as `tsc -p` would.
    const rest = whole
      ? program
          .getSourceFiles()
          .filter(
            (sf) => !heldSet.has(sf.fileName) && !program.isSourceFileDefaultLibrary(sf) && !program.isSourceFileFromExternalLibrary(sf),
          )
      : [];
    const check = `types ${project}`;
    const diagnostics = [...ours.map((f) => program.getSourceFile(f)), ...rest].flatMap((file) => {
      const key = keys.get(file.fileName);
      if (key && cache.clean(check, key)) return [];
      const found = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
      if (key && !found.length) cache.found(check, key);
      return found;
    });
    if (whole) diagnostics.push(...configErrors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
    if (report(project, ts.sortAndDeduplicateDiagnostics(diagnostics))) failed = true;
  }
  if (unread) {
    cache.save();
    return 1;
  }

  const eslint = new ESLint({
    cwd: root,
    errorOnUnmatchedPattern: false,
    overrideConfig: { languageOptions: { parserOptions: { programs, project: false, projectService: false } } },
  });
  // Alone, ESLint lints the whole workspace (its files outside the programs too); in shares, each its
  // programs' files not found clean before with the same inputs.
  const lintable = async (f) => !(lintKeys.has(f) && cache.clean('lint', lintKeys.get(f))) && !(await eslint.isPathIgnored(f));
  const targets = count === 1 ? ['.'] : (await Promise.all(files.map(async (f) => ((await lintable(f)) ? [f] : [])))).flat();
  const results = targets.length ? await eslint.lintFiles(targets) : [];
  if (results.some((r) => r.errorCount > 0 || r.fatalErrorCount > 0)) failed = true;
  for (const r of results) if (!r.messages.length && lintKeys.has(r.filePath)) cache.found('lint', lintKeys.get(r.filePath));
  cache.save();
  const formatted = await (await eslint.loadFormatter('stylish')).format(results);
  if (formatted) console.log(formatted);
  return failed ? 1 : 0;
}

/** Prints a program's type errors as tsc does; true when there are some. */
function report(project, diagnostics) {
  if (!diagnostics.length) return false;
  console.log(`Type errors (tsc -p ${project} --noEmit):`);
  console.log((color ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics)(diagnostics, format));
  return true;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exitCode = 1;
  },
);
