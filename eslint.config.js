// Lint rules: typescript-eslint's type-aware checks that catch what tsc does not —
// floating promises, non-exhaustive switches, value imports of types — and import cycles
// (dependency-cruiser.config.mjs checks the layers and the circles type-only imports make).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.scratch/', 'bin/', 'scripts/', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: { 'import-x/extensions': ['.ts', '.js'], 'import-x/ignore': ['node_modules'] },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
);
