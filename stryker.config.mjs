/**
 * Mutation testing of the modules that guard what reaches the runner: the service's answer parser,
 * the log-safety helpers, the input parser and the retry helper. Run it with `npm run mutate` after
 * changing a validator (see CONTRIBUTING.md); it is not part of CI (.ci/run), since it takes minutes.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  // The tests are ES modules (ts-jest with useESM), as `npm test` runs them.
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  // Mutants that do not compile are dropped before any test runs: faster and no false survivors.
  checkers: ['typescript'],
  // Only the sources: a mutant is a change to src/, and the tests' own types do not depend on it.
  tsconfigFile: 'tsconfig.stryker.json',
  coverageAnalysis: 'perTest',
  jest: {
    configFile: 'jest.config.js',
    config: {
      // The unit tests of the mutated modules; the end-to-end and bundle suites test other things
      // and take minutes.
      testMatch: [
        '<rootDir>/__tests__/core/service/**/*.test.ts',
        '<rootDir>/__tests__/core/text/**/*.test.ts',
        '<rootDir>/__tests__/core/settings/**/*.test.ts'
      ]
    }
  },
  mutate: [
    // The response parser: the service's answer, the credential in it, and what must be revoked.
    'src/core/service/answer.ts',
    'src/core/service/answer-fields.ts',
    'src/core/service/answer-secrets.ts',
    'src/core/service/credential.ts',
    'src/core/service/issued-credential.ts',
    // The retry helper.
    'src/core/service/retry.ts',
    // The log-safety helpers.
    'src/core/text/printable.ts',
    'src/core/text/quote.ts',
    'src/core/text/describe-error.ts',
    'src/core/text/workflow-command.ts',
    'src/core/text/validators.ts',
    // The input parser (types.ts holds only types).
    'src/core/settings/*.ts',
    '!src/core/settings/types.ts'
  ],
  // What the sandbox needs: the sources, the tests and their helpers, and the configs.
  ignorePatterns: ['dist', 'coverage', 'docs', 'bench', '__tests__/e2e', '__tests__/fixtures'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  concurrency: 2,
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp'
}
