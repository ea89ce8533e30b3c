/**
 * What the mutation runs of `npm run mutate` share (CONTRIBUTING.md says when to run it).
 * Each run mutates one group of modules and runs only that group's unit tests: a mutant in a
 * module-level constant (a regex, mostly) is "static" and runs every test Stryker is given, so
 * one run over all groups spent most of its time running other groups' tests.
 */

/**
 * @param {{ name: string, mutate: string[], tests: string[] }} group
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function mutationRun({ name, mutate, tests }) {
  return {
    packageManager: 'npm',
    testRunner: 'jest',
    // The tests are ES modules (ts-jest with useESM), as `npm test` runs them.
    testRunnerNodeArgs: ['--experimental-vm-modules'],
    // Mutants that do not compile are dropped before any test runs. The group's tsconfig holds
    // only its modules (and what they import), so a check does not re-check the whole project.
    checkers: ['typescript'],
    tsconfigFile: `stryker/tsconfig.${name}.json`,
    coverageAnalysis: 'perTest',
    // A static mutant (one in a module-level constant, mostly a regex) runs every test of the
    // group, once per mutant: most of a run's time went there, and the 30-minute bound on two
    // cores was out of reach with them. The regexes' behaviour is pinned by the unit tests and
    // the property tests of \`npm test\` instead.
    ignoreStatic: true,
    jest: {
      configFile: 'jest.config.js',
      config: {
        testMatch: tests.map(path => `<rootDir>/${path}`),
        setupFilesAfterEnv: ['<rootDir>/stryker/property-tests-fail-fast.mjs']
      }
    },
    mutate,
    // What the sandbox needs: sources, tests and their helpers, configs. Not the bundle.
    // `.stryker-tmp`: the other runs' sandboxes, when two run at once. docs/traffic.md stays: a
    // header-rule test checks that it lists the same words as the rule.
    ignorePatterns: [
      'dist',
      'coverage',
      'docs/*',
      '!docs/traffic.md',
      'bench',
      '__tests__/e2e',
      '__tests__/fixtures',
      '.stryker-tmp'
    ],
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    // 2 cores: a checker and a test runner, then two test runners once checking is done.
    concurrency: 2,
    thresholds: { high: 95, low: 90, break: null },
    // One folder per run, so that two runs at once do not clean each other's sandbox away.
    tempDirName: `.stryker-tmp/${name}`
  }
}
