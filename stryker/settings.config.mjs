// The input parser (types.ts holds only types), against its unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'settings',
  mutate: ['src/core/settings/*.ts', '!src/core/settings/types.ts'],
  tests: ['__tests__/core/settings/**/*.test.ts']
})
