import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '.tmp/**', 'bench/data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', { selector: 'CallExpression[callee.property.name="only"]', message: 'No focused tests.' }],
    },
  },
  {
    // An edit, a write or a run started and never awaited finishes after its caller said "done"
    // (or fails unseen): every promise in main-side code, tests and the bench is awaited or
    // explicitly let go with `void`.
    files: ['src-main/**/*.ts', 'src-preload/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // The renderer runs in the browser: only types may come from main or preload.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/src-main/**', '../../src-main/*'], message: 'The renderer may not import main-process code.' },
            { group: ['electron', 'node:*'], message: 'No Node or Electron in the renderer.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/**/*.ts', 'src-preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/src-renderer/**'], message: 'Main and preload may not import renderer code.' }] },
      ],
    },
  },
);
