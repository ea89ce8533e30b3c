/** Jest runs the TypeScript sources as native ES modules (the @actions packages are ESM-only). */
export default {
  testEnvironment: 'node',
  // Some tests generate RSA keys or start processes; 5 s was too tight on a loaded 2-core runner.
  // A hang still fails, only later. Speed targets live in `npm run bench`, not here.
  testTimeout: 20_000,
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    // Sources import siblings as './x.js' (NodeNext); map them back to the .ts file.
    '^(\\.{1,2}/.*)\\.js$': '$1'
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: { isolatedModules: true } }]
  },
  // Stops the run with one line naming any missing system package (curl, jq, OpenSSH, rsync),
  // before tests that need one fail far from the cause.
  globalSetup: '<rootDir>/scripts/system-packages.ts',
  testMatch: ['<rootDir>/__tests__/**/*.test.ts', '<rootDir>/service/__tests__/**/*.test.ts'],
  // `npm run mutate` copies the project into .stryker-tmp/ and writes reports/: never tests nor
  // modules of this run (a sandbox's package.json and sources would shadow the real ones).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/.stryker-tmp/', '<rootDir>/reports/'],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/', '<rootDir>/reports/'],
  collectCoverageFrom: [
    'src/**/*.ts',
    // The tunnel process's entry: a few lines of IPC wiring that only ever run in the detached
    // child (tests run it through tsx, where Jest cannot count it). Its logic is keeper.ts.
    '!src/core/tunnel/keeper/main.ts',
    // Stubs that the bundle maps in place of packages; never loaded by the sources under test.
    '!src/bundle/cpu-features-stub.ts'
  ],
  coverageThreshold: {
    global: { lines: 95, branches: 90 }
  },
  coverageReporters: ['text-summary', 'json-summary', 'lcov']
}
