// The log-safety helpers, against their unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'text',
  // log-commands.ts builds its patterns on first need and keeps them. With per-test coverage a
  // mutant in them counts as covered only by the one test that happened to build them, so the
  // tests that would notice it never run: 20 of its 101 mutants "survived" that way. Every test
  // runs for every mutant instead (Stryker then runs the static mutants too).
  coverageAnalysis: 'all',
  mutate: [
    'src/core/text/printable.ts',
    'src/core/text/quote.ts',
    'src/core/text/describe-error.ts',
    'src/core/text/log-commands.ts',
    'src/core/text/validators.ts'
  ],
  tests: ['__tests__/core/text/**/*.test.ts']
})
