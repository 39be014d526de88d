import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', 'public/vendor', 'dist', '.dist-*'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Fastify's own signal knows nothing of REQUEST_TIMEOUT_MS (src/http/timeout.ts).
      'no-restricted-properties': [
        'error',
        ...['request', 'req'].map((object) => ({
          object,
          property: 'signal',
          message: 'use request.deadline.signal, which aborts at REQUEST_TIMEOUT_MS',
        })),
      ],
    },
  },
  {
    // Tests read JSON answers; typing every one would add noise, not safety.
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The build and start launchers, and the embedded database's worker thread, are plain
    // JavaScript that node loads itself.
    files: ['scripts/**/*.mjs', 'src/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { project: false, program: null, projectService: false },
      globals: {
        console: 'readonly',
        process: 'readonly',
        setTimeout: 'readonly',
        setImmediate: 'readonly',
        Blob: 'readonly',
      },
    },
  },
  {
    // The home page's modules run in the browser; tsc checks them from their JSDoc (allowJs).
    files: ['src/**/page/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        window: 'readonly',
        fetch: 'readonly',
        navigator: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        HTMLElement: 'readonly',
        ResizeObserver: 'readonly',
      },
    },
  },
);
