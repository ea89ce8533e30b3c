// What keeps the request log private and what `replay` trusts in a HAR file: redaction (of
// values, of credential headers by name, of URLs), the patterns that find the run's secrets in any
// form, and the HAR reader, against their unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'request-log',
  mutate: [
    'src/core/tunnel/request-log/redact.ts',
    'src/core/tunnel/request-log/header-rule.ts',
    'src/core/tunnel/request-log/url-redact.ts',
    'src/core/tunnel/request-log/secret-pattern.ts',
    'src/cli/har-read.ts'
  ],
  tests: [
    '__tests__/core/tunnel/request-log/redact.test.ts',
    '__tests__/core/tunnel/request-log/redact-headers.test.ts',
    '__tests__/core/tunnel/request-log/redact-urls.test.ts',
    '__tests__/core/tunnel/request-log/secret-pattern.test.ts',
    '__tests__/cli/har-read.test.ts'
  ]
})
