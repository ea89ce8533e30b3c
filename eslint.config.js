import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'reports/', '.stryker-tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      // The code runs on Node only; these are its globals that the files use.
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly'
      }
    },
    rules: {
      // A leading underscore marks a value left out on purpose, e.g. `const { a: _a, ...rest } = x`.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }
      ]
    }
  },
  {
    // One core, two hosts: only the GitHub host talks to the runner through @actions/core.
    files: ['src/**/*.ts'],
    ignores: ['src/github/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@actions/core',
              message: 'Only src/github/ may use @actions/core; the core goes through its Host.'
            }
          ]
        }
      ]
    }
  },
  {
    // The tunnel process outlives the step with the token in hand, and its bundle holds only what
    // it imports: its protocol, the text helpers, the request log, node builtins and ssh2. Never
    // option or credential parsing, nor any other part of the core.
    files: ['src/core/tunnel/keeper/*'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!protocol\\.js$|request-log/|\\.\\./text/[\\w-]+\\.js$)',
              message:
                'The tunnel process imports only ../protocol.js, ../request-log/ and ../../text/ of the core.'
            },
            {
              regex: '^(?!\\.|node:|ssh2(/|$))',
              message: 'The tunnel process imports only node builtins (node:…) and ssh2.'
            }
          ]
        }
      ]
    }
  },
  {
    // The same boundary, one folder down (ssh/, forwarding/, http/), which may also use the
    // keeper's own modules.
    files: ['src/core/tunnel/keeper/*/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./\\.\\./(?!protocol\\.js$|request-log/|\\.\\./text/[\\w-]+\\.js$)',
              message:
                'The tunnel process imports only ../protocol.js, ../request-log/ and ../../text/ of the core.'
            },
            {
              regex: '^(?!\\.|node:|ssh2(/|$))',
              message: 'The tunnel process imports only node builtins (node:…) and ssh2.'
            }
          ]
        }
      ]
    }
  },
  {
    // The core reads no environment or command line: the host gives it options, temp root and run.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'The core reads the environment only through its Host.'
        },
        {
          object: 'process',
          property: 'argv',
          message: 'The core reads the command line only through its Host.'
        }
      ]
    }
  }
)
