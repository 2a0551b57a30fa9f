// @ts-check
// Lint for the whole workspace: typescript-eslint's strict type-checked rules (floating
// promises, exhaustive switches, no unused code) on every package, Prettier owning the format.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

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
      // NestJS modules are classes with decorators and nothing else.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
    },
  },
  prettier,
);
