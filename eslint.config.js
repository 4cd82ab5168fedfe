// Lint: eslint's and typescript-eslint's recommended rules, the latter type-aware (types from tsconfig.json).
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/results/', '.tmp/', 'helm/', 'grafana/', 'prometheus/', 'docs/'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `async` here implements a promise-returning interface (fakes, callbacks, prom-client's get): a throw must become a rejection.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks what must be named but is not used (express's four-argument error handler, keys left out of a rest).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // Tests read the wire's raw JSON on purpose, apart from the exporter's schemas, so `any` there is the point, not a leak.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // Plain JavaScript (this file, the build-info script) outside tsconfig.json: no type information for it.
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
);
