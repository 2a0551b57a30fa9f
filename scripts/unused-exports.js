#!/usr/bin/env node
// Exports that nothing outside their own file uses, in the workspace's sources (tests, benches,
// examples, migrations and the generated libs/contracts/src/api.ts aside): candidates for
// dropping the `export`, or the code. A use is an import (or re-export that is imported) by
// another file of the workspace or of the dashboard, a namespace import or an `import()` of
// the module. Not run by `npm test` (it takes a while): `node scripts/unused-exports.js`.
// Read each finding before acting: a file a plain JavaScript entry point requires (the CLI's
// bin/arbiter.js requires `main`) and constants kept only for a compile-time check show here.
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const SKIP = /(^|\/)(test|bench|migrations|examples)\/|\.spec\.tsx?$|^libs\/contracts\/src\/api\.ts$/;

function program(tsconfig) {
  const file = path.join(root, tsconfig);
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(file));
  return ts.createProgram(parsed.fileNames, parsed.options);
}

const declared = new Map(); // `${file}#${name}` -> { file, name }
const used = new Set();
const keyOf = (symbol) => {
  const decl = symbol.declarations?.[0];
  return decl ? `${decl.getSourceFile().fileName}#${symbol.name}` : undefined;
};

for (const tsconfig of ['tsconfig.json', 'apps/dashboard/tsconfig.json']) {
  const prog = program(tsconfig);
  const checker = prog.getTypeChecker();
  const resolve = (symbol) => {
    if (!(symbol.flags & ts.SymbolFlags.Alias)) return symbol;
    try {
      return checker.getAliasedSymbol(symbol);
    } catch {
      return symbol;
    }
  };
  const useFrom = (sf, symbol) => {
    const key = symbol && keyOf(resolve(symbol));
    if (key && !key.startsWith(`${sf.fileName}#`)) used.add(key);
  };
  const useModule = (specifier) => {
    const module = specifier && checker.getSymbolAtLocation(specifier);
    if (module) for (const e of checker.getExportsOfModule(module)) used.add(keyOf(resolve(e)));
  };
  for (const sf of prog.getSourceFiles()) {
    if (sf.fileName.includes('/node_modules/')) continue;
    const module = checker.getSymbolAtLocation(sf);
    if (module && tsconfig === 'tsconfig.json') {
      for (const e of checker.getExportsOfModule(module)) {
        const key = e.flags & ts.SymbolFlags.Alias ? undefined : keyOf(e);
        if (key?.startsWith(`${sf.fileName}#`)) declared.set(key, { file: path.relative(root, sf.fileName), name: e.name });
      }
    }
    const visit = (node) => {
      if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node) || ts.isImportClause(node)) {
        if (node.name) useFrom(sf, checker.getSymbolAtLocation(node.name));
      } else if (ts.isNamespaceImport(node)) useModule(node.parent.parent.moduleSpecifier);
      else if (ts.isImportTypeNode(node)) useModule(node.argument.literal);
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) useModule(node.arguments[0]);
      else if (ts.isPropertyAccessExpression(node)) useFrom(sf, checker.getSymbolAtLocation(node.name));
      else if (ts.isQualifiedName(node)) useFrom(sf, checker.getSymbolAtLocation(node.right));
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
}

const unused = [...declared]
  .filter(([key, { file }]) => !used.has(key) && !SKIP.test(file))
  .map(([, d]) => d)
  .sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
for (const { file, name } of unused) console.log(`${file}\t${name}`);
console.error(`${unused.length} exports used only in their own file`);
