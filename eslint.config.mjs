// @ts-check
// Lint for the whole workspace: typescript-eslint's strict type-checked rules (floating
// promises, exhaustive switches, no unused code, no `any`) on every package, Prettier owning the
// format, and the module boundaries of docs/ARCHITECTURE.md. (The control plane's folders
// depending one way, without circles, is a graph property no import rule expresses:
// scripts/folder-deps.js checks it in the same lint step.)
import * as fs from 'node:fs';
import * as path from 'node:path';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Node's modules that do I/O: the allocator uses none of them. */
const NODE_IO = ['fs', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'dns', 'tls', 'cluster', 'worker_threads'].flatMap(
  (m) => [m, `node:${m}`, `${m}/*`, `node:${m}/*`],
);
const FRAMEWORKS = ['@nestjs/*', 'typeorm', 'typeorm/*', 'pg', 'socket.io', 'socket.io-client', 'express', 'next', 'next/*', 'react'];

/**
 * The public entry points of the workspace's packages besides `@arbiter/<name>`: the subpaths
 * their package.json `exports` name, e.g. `control-plane/config` for `@arbiter/control-plane/config`.
 * Read from the package files, so exporting a subpath is what makes it importable.
 */
const PUBLIC_SUBPATHS = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'package.json'), 'utf8'))
  .workspaces.flatMap((/** @type {string} */ w) =>
    w.endsWith('/*') ? fs.readdirSync(path.join(import.meta.dirname, w.slice(0, -2))).map((d) => `${w.slice(0, -1)}${d}`) : [w],
  )
  .map((/** @type {string} */ dir) => path.join(import.meta.dirname, dir, 'package.json'))
  .filter((/** @type {string} */ file) => fs.existsSync(file))
  .flatMap((/** @type {string} */ file) => {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    return Object.keys(pkg.exports ?? {})
      .filter((k) => k !== '.')
      .map((k) => `${pkg.name.replace(/^@arbiter\//, '')}/${k.replace(/^\.\//, '')}`);
  });
const escape = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** no-restricted-imports patterns, one list per boundary; a file's block lists every boundary it is inside. */
const BOUNDARY = {
  /**
   * (c) Other packages through their public entry points, never by path. (A test may still use
   * another package's test support by path: the dashboard's browser tests run the control
   * plane's test harness.)
   */
  entryPoints: [
    {
      regex: `^@arbiter/(?!(?:${PUBLIC_SUBPATHS.map(escape).join('|')})$)[^/]+/`,
      message: "import a package's public entry point: `@arbiter/<name>` or a subpath its package.json `exports` names.",
    },
    {
      // (`../../*/src` would match a file's own package from three folders down, `*` being `..`.)
      group: [
        '**/libs/*/**',
        '**/apps/*/**',
        '**/examples/**',
        '../../*/src',
        '../../*/src/**',
        '../../../*/src/**',
        '!../../../src',
        '!../../../src/**',
      ],
      message: 'import another package by its name (`@arbiter/<name>`), not by path.',
    },
  ],
  /** (d) TypeORM and pg: only in the control plane's repositories, entities, database/ and migrations. */
  sql: [
    {
      group: ['typeorm', 'typeorm/*', 'pg', 'pg/*'],
      message: "SQL and TypeORM live in the control plane's *.repository.ts, *.entity.ts, src/database/ and migrations/.",
    },
  ],
  /** (a) The allocator is pure: nothing of ours, no framework, no I/O (clock and randomness are injected). */
  allocator: [
    { group: ['@arbiter/*', ...FRAMEWORKS, ...NODE_IO], message: 'libs/allocator imports nothing of ours, no framework and does no I/O.' },
  ],
  /** The allocator's tests: nothing of ours, no framework (they may read scenario files). */
  allocatorTests: [{ group: ['@arbiter/*', ...FRAMEWORKS], message: "the allocator's tests import nothing of ours and no framework." }],
  /**
   * (e) The control plane's kernel is mechanism only (serial order, lanes, clock, term): it
   * knows no noun. The nouns import it, never the other way.
   */
  kernel: [
    {
      regex: '^\\.\\./(?!database/(database\\.service|master-database)$|errors/)',
      message:
        "the kernel knows no noun: only the error codes and the database's error classification (and the fence's) are below it (docs/ARCHITECTURE.md, 'The kernel and its serial order').",
    },
  ],
  /**
   * (f) The master's state is the handlers': REST services, controllers and DTOs read the live
   * state through LiveView and the allocation snapshot, never the state itself.
   */
  masterState: [
    {
      group: ['**/master/cluster-state', '**/master/offer-book'],
      message: "the master's state is changed and read by its handlers; a REST service reads it through LiveView or AllocationSnapshot.",
    },
  ],
  /**
   * (g) The agents and the frameworks the master knows have one owner each: the registries,
   * changed only by the handlers of their lifecycle (agent-lifecycle/, framework-lifecycle/). Everything else reads them through ClusterState's
   * read-only views (their types may be imported anywhere).
   */
  agentRegistry: [
    {
      group: ['**/master/agent-registry'],
      importNames: ['AgentRegistry'],
      message: "the agents are changed by the agents' lifecycle handlers only (agent-lifecycle/); read them through ClusterState.agents.",
    },
  ],
  frameworkRegistry: [
    {
      group: ['**/master/framework-registry'],
      importNames: ['FrameworkRegistry'],
      message:
        "the frameworks are changed by the frameworks' lifecycle handlers only (framework-lifecycle/); read them through ClusterState.frameworks.",
    },
  ],
  /**
   * The modules' interfaces (libs/modules): what a module is written against, so nothing of an
   * application's and no framework; only the allocator's types and Node's module loading.
   */
  modules: [
    {
      regex: '^@arbiter/(?!allocator$)',
      message: 'libs/modules imports only @arbiter/allocator of ours (a module is written against it and the allocator alone).',
    },
    {
      group: [...FRAMEWORKS, 'net', 'node:net', 'http', 'node:http', 'child_process', 'node:child_process'],
      message: 'libs/modules uses no framework and no network or process I/O.',
    },
  ],
  /** (b) The wire contracts: zod, and their own modules. */
  contracts: [{ regex: '^(?!\\.\\.?/|zod(?:/|$))', message: 'libs/contracts imports only zod.' }],
};
const restrict = (/** @type {Array<Record<string, unknown>>} */ ...patterns) => ({
  'no-restricted-imports': ['error', { patterns: patterns.flat() }],
});
/** Where TypeORM and pg may be imported: migrations at the root (or, until moved, in the control plane) and the control plane's tests. */
const SQL_ALLOWED = [
  'apps/control-plane/src/**/*.repository.ts',
  'apps/control-plane/src/**/*.entity.ts',
  'apps/control-plane/src/database/**',
  'apps/control-plane/migrations/**',
  'migrations/**',
  'apps/control-plane/test/**',
  'apps/control-plane/src/**/*.spec.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.next/**',
      '**/next-env.d.ts',
      'reports/**',
      'coverage/**',
      '.nx/**',
      'libs/contracts/src/api.ts',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      // Two TypeScript programs for the whole workspace: the root tsconfig.json (every package
      // but the dashboard's app) and the dashboard's own (JSX, the DOM). A file is linted in the
      // first that holds it. (The project service would build one program per package's
      // tsconfig, each with the sources it imports from the others: the libraries were parsed
      // and checked once per package that uses them, close to twice the work.)
      parserOptions: { project: ['./tsconfig.json', './apps/dashboard/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Array<{ ... }> for object and union element types, T[] for simple ones.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      // `(x) => doSomething(x)` returning void is the idiom of callbacks; void elsewhere is flagged.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `text || fallback` on strings is deliberate: an empty query parameter, form field, cookie or
      // environment variable means "not given". `??` stays required for numbers, booleans and objects.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // DTO and entity classes are shapes here (NestJS and TypeORM read their decorators): plain
      // objects of their shape are what services return and repositories accept.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // The same for spreading them: their prototype carries nothing but decorator metadata.
      '@typescript-eslint/no-misused-spread': [
        'error',
        { allow: [{ from: 'file', name: ['AgentDto', 'CycleDto', 'TaskDto', 'ReservationEntity', 'TaskEntity'] }] },
      ],
      // Decorated properties need their type written out: it is what the decorator metadata records.
      '@typescript-eslint/no-inferrable-types': ['error', { ignoreProperties: true }],
      // NestJS modules are classes with decorators and nothing else.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
    },
  },
  // Module boundaries (docs/ARCHITECTURE.md). A later block replaces an earlier one's
  // no-restricted-imports for the files it matches, so each lists every boundary its files are inside.
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: restrict(BOUNDARY.entryPoints, BOUNDARY.sql, BOUNDARY.agentRegistry, BOUNDARY.frameworkRegistry),
  },
  { files: SQL_ALLOWED, rules: restrict(BOUNDARY.entryPoints, BOUNDARY.agentRegistry, BOUNDARY.frameworkRegistry) },
  // The owners of the registries, and the state and module that hold them.
  {
    files: ['apps/control-plane/src/agent-lifecycle/*.handler.ts'],
    rules: restrict(BOUNDARY.entryPoints, BOUNDARY.sql, BOUNDARY.frameworkRegistry),
  },
  {
    files: ['apps/control-plane/src/framework-lifecycle/*.handler.ts'],
    rules: restrict(BOUNDARY.entryPoints, BOUNDARY.sql, BOUNDARY.agentRegistry),
  },
  {
    files: ['apps/control-plane/src/master/cluster-state.ts', 'apps/control-plane/src/master/master.module.ts'],
    rules: restrict(BOUNDARY.entryPoints, BOUNDARY.sql),
  },
  // Unit tests may build the registries (and, as SQL_ALLOWED says, reach the database).
  { files: ['apps/control-plane/src/**/*.spec.ts'], rules: restrict(BOUNDARY.entryPoints) },
  { files: ['libs/allocator/src/**', 'libs/allocator/bench/**'], rules: restrict(BOUNDARY.entryPoints, BOUNDARY.allocator) },
  { files: ['libs/allocator/test/**'], rules: restrict(BOUNDARY.entryPoints, BOUNDARY.allocatorTests) },
  { files: ['libs/contracts/src/**'], rules: restrict(BOUNDARY.entryPoints, BOUNDARY.contracts) },
  { files: ['libs/modules/src/**'], rules: restrict(BOUNDARY.entryPoints, BOUNDARY.modules) },
  {
    files: ['apps/control-plane/src/kernel/**'],
    rules: restrict(BOUNDARY.entryPoints, BOUNDARY.sql, BOUNDARY.kernel, BOUNDARY.agentRegistry, BOUNDARY.frameworkRegistry),
  },
  {
    files: ['apps/control-plane/src/**/*.service.ts', 'apps/control-plane/src/**/*.controller.ts', 'apps/control-plane/src/**/*.dto.ts'],
    // The Mesos scheduler API is a gateway (calls in, to the handlers), not a REST service.
    ignores: ['apps/control-plane/src/mesos/mesos-scheduler.service.ts', 'apps/control-plane/src/database/**'],
    rules: restrict(BOUNDARY.entryPoints, BOUNDARY.sql, BOUNDARY.masterState, BOUNDARY.agentRegistry, BOUNDARY.frameworkRegistry),
  },
  prettier,
);
