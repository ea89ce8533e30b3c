// The log-safety helpers, against their unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'text',
  mutate: [
    'src/core/text/printable.ts',
    'src/core/text/quote.ts',
    'src/core/text/describe-error.ts',
    'src/core/text/log-commands.ts',
    'src/core/text/validators.ts'
  ],
  tests: ['__tests__/core/text/**/*.test.ts']
})
