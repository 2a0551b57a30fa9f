// @ts-check
// Lint for the whole workspace: typescript-eslint's strict type-checked rules (floating
// promises, exhaustive switches, no unused code, no `any`) on every package, Prettier owning the
// format, and the module boundaries of docs/ARCHITECTURE.md.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Node's modules that do I/O: the allocator uses none of them. */
const NODE_IO = ['fs', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'dns', 'tls', 'cluster', 'worker_threads'].flatMap(
  (m) => [m, `node:${m}`, `${m}/*`, `node:${m}/*`],
);
const FRAMEWORKS = ['@nestjs/*', 'typeorm', 'typeorm/*', 'pg', 'socket.io', 'socket.io-client', 'express', 'next', 'next/*', 'react'];

/**
 * Code not yet brought under the full rule set, and the rules it still breaks. New and rewritten
 * code (the sources of the control plane, the allocator, contracts, the SDK and the agent,
 * examples, migrations) has none of these exceptions; this list only shrinks.
 */
const NOT_YET_STRICT = {
  files: [
    'libs/allocator/test/**',
    'libs/allocator/bench/**',
    'apps/cli/**',
    'apps/dashboard/**',
    'apps/*/test/**',
    'libs/*/test/**',
    '**/*.spec.ts',
  ],
  rules: [
    'no-unsafe-member-access',
    'no-unsafe-assignment',
    'no-unsafe-argument',
    'no-unsafe-return',
    'no-unsafe-call',
    'no-explicit-any',
    'no-non-null-assertion',
    'no-require-imports',
    'no-unnecessary-condition',
    'no-deprecated',
    'no-unnecessary-type-conversion',
    'prefer-nullish-coalescing',
    'no-misused-promises',
    'use-unknown-in-catch-callback-variable',
    'no-confusing-void-expression',
    'restrict-template-expressions',
    'no-unnecessary-type-assertion',
    'no-base-to-string',
    'require-await',
    'prefer-optional-chain',
    'no-empty-function',
    'no-meaningless-void-operator',
    'no-dynamic-delete',
    'prefer-for-of',
    'no-invalid-void-type',
    'restrict-plus-operands',
    'no-unused-expressions',
  ].map((r) => `@typescript-eslint/${r}`),
};

/** Tests already under the full rule set (the REST API called through the typed client). */
const STRICT_TESTS = [
  'apps/control-plane/src/roles/roles.rules.spec.ts',
  'apps/control-plane/src/maintenance/maintenance.rules.spec.ts',
  'apps/control-plane/src/cluster/cluster.alerts.spec.ts',
  'apps/control-plane/src/common/resources.dto.spec.ts',
  'apps/dashboard/test/**',
  'apps/control-plane/test/restart.spec.ts',
  'apps/control-plane/test/schema.spec.ts',
  'apps/control-plane/test/config.spec.ts',
  'apps/control-plane/test/examples.spec.ts',
  'apps/control-plane/test/support/fake-agent.ts',
  'apps/control-plane/test/support/recorder.ts',
  'apps/control-plane/test/support/process.ts',
  'apps/control-plane/test/support/postgres.ts',
  'apps/control-plane/test/support/global-*.ts',
  'apps/control-plane/test/support/jest-setup.ts',
  'apps/control-plane/test/support/until.ts',
  'apps/control-plane/test/cluster.spec.ts',
  'apps/control-plane/test/reservations.spec.ts',
  'apps/control-plane/test/lists.spec.ts',
  'apps/control-plane/test/openapi.spec.ts',
  'apps/control-plane/test/whitelist.spec.ts',
  'apps/control-plane/test/maintenance.spec.ts',
  'apps/control-plane/test/auth.spec.ts',
  'apps/control-plane/test/audit.spec.ts',
  'apps/control-plane/test/support/matchers.ts',
  'apps/control-plane/test/agents.spec.ts',
  'apps/control-plane/test/roles.spec.ts',
  'apps/control-plane/test/support/client.ts',
  'apps/control-plane/test/support/unchanged.ts',
  'apps/control-plane/test/support/data-dir.ts',
  'apps/agent/test/**',
  'apps/control-plane/test/master.spec.ts',
  'apps/control-plane/test/e2e.spec.ts',
  'apps/control-plane/test/live-tasks.spec.ts',
  'apps/control-plane/test/support/app.ts',
  'apps/control-plane/src/**/*.spec.ts',
  'libs/contracts/**/*.spec.ts',
  'libs/scheduler-sdk/**/*.spec.ts',
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
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Array<{ ... }> for object and union element types, T[] for simple ones.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      // `(x) => doSomething(x)` returning void is the idiom of callbacks; void elsewhere is flagged.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
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
  {
    // The allocator is pure: nothing of ours, no framework, no I/O (clock and randomness are injected).
    files: ['libs/allocator/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@arbiter/*', ...FRAMEWORKS, ...NODE_IO], message: 'libs/allocator imports nothing of ours and does no I/O.' },
          ],
        },
      ],
    },
  },
  {
    // The wire contracts: zod and nothing of ours or of a framework.
    files: ['libs/contracts/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@arbiter/*', ...FRAMEWORKS, ...NODE_IO], message: 'libs/contracts imports only zod.' }] },
      ],
    },
  },
  {
    // Apps use other packages through their public entry points only.
    files: ['apps/*/src/**/*.ts', 'apps/*/src/**/*.tsx', 'apps/dashboard/app/**/*.ts', 'apps/dashboard/app/**/*.tsx', 'examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@arbiter/*/src', '@arbiter/*/src/**'],
              message: "import a package's public entry point (its package.json exports).",
            },
            { group: ['**/libs/**', '../../*/src/**', '../../../*/src/**'], message: 'import another package by its name, not by path.' },
          ],
        },
      ],
    },
  },
  {
    // In the control plane, TypeORM and pg only in repositories, entities and database/.
    files: ['apps/control-plane/src/**/*.ts'],
    ignores: ['apps/control-plane/src/**/*.repository.ts', 'apps/control-plane/src/**/*.entity.ts', 'apps/control-plane/src/database/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['typeorm', 'typeorm/*', 'pg'], message: 'SQL and TypeORM live in repositories, entities, migrations and database/.' },
          ],
        },
      ],
    },
  },
  { files: NOT_YET_STRICT.files, ignores: STRICT_TESTS, rules: Object.fromEntries(NOT_YET_STRICT.rules.map((r) => [r, 'off'])) },
  prettier,
);
