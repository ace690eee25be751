import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.venv/**',
      '.node/**',
      '.kube/**',
      '.istio/**',
      'bin/**',
      'image/**',
      'bench/.bin/**',
      'eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // scripts/*.mjs: plain JavaScript that runs before anything is built (npm's prestart).
        projectService: { allowDefaultProject: ['scripts/*.mjs', 'scripts/lib/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
