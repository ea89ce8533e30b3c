import { runIdentityFrom } from '../../src/github/run-identity.js'

describe('runIdentityFrom', () => {
  it('reads the runner variables', () => {
    expect(
      runIdentityFrom({
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_RUN_ID: '5',
        GITHUB_RUN_ATTEMPT: '3'
      })
    ).toEqual({ repository: 'o/r', runId: '5', runAttempt: '3' })
  })
})
