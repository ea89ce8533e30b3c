// The parser of the service's answer, and the retry helper, against their unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'service',
  mutate: [
    'src/core/service/answer.ts',
    'src/core/service/answer-fields.ts',
    'src/core/service/answer-secrets.ts',
    'src/core/service/credential.ts',
    'src/core/service/issued-credential.ts',
    'src/core/service/retry.ts'
  ],
  tests: [
    '__tests__/core/service/answer.test.ts',
    '__tests__/core/service/answer-secrets.test.ts',
    '__tests__/core/service/credential*.test.ts',
    '__tests__/core/service/retry.test.ts'
  ]
})
