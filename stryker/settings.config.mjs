// The input parser (types.ts holds only types), against its unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'settings',
  mutate: ['src/core/settings/*.ts', 'src/core/assembly/*.ts', '!src/core/settings/types.ts'],
  tests: ['__tests__/core/settings/**/*.test.ts', '__tests__/core/assembly/**/*.test.ts']
})
