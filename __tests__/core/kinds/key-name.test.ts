import { keyNameFor, MAX_KEY_NAME_LENGTH } from '../../../src/core/kinds/key-name.js'

describe('keyNameFor', () => {
  it('is ci-<repository>-<run id>-<run attempt>, with the repository slash made a dash', () => {
    expect(
      keyNameFor({ repository: 'octo-org/web-shop', runId: '9876543210', runAttempt: '2' })
    ).toBe('ci-octo-org-web-shop-9876543210-2')
  })

  it('keeps dots and underscores, which GitHub allows in repository names', () => {
    expect(keyNameFor({ repository: 'octo/my_site.io', runId: '1', runAttempt: '1' })).toBe(
      'ci-octo-my_site.io-1-1'
    )
  })

  it('cuts the whole name to 100 characters', () => {
    const name = keyNameFor({
      repository: `octo-org/${'r'.repeat(120)}`,
      runId: '12345',
      runAttempt: '1'
    })
    expect(name).toHaveLength(MAX_KEY_NAME_LENGTH)
    expect(name).toBe(`ci-octo-org-${'r'.repeat(88)}`)
  })

  it('leaves a name that fits alone', () => {
    const repository = `o/${'r'.repeat(100 - 'ci-o--7-1'.length)}`
    expect(keyNameFor({ repository, runId: '7', runAttempt: '1' })).toHaveLength(100)
    expect(keyNameFor({ repository, runId: '7', runAttempt: '1' }).endsWith('-7-1')).toBe(true)
  })

  it('turns spaces and line breaks into dashes, since the name is also the key comment', () => {
    expect(keyNameFor({ repository: 'a b/c\nd', runId: '1', runAttempt: '1' })).toBe(
      'ci-a-b-c-d-1-1'
    )
  })

  it('stands in for what a local run lacks', () => {
    expect(keyNameFor({})).toBe('ci-local-0-1')
    expect(keyNameFor({ repository: 'o/r', runId: 'x y', runAttempt: '' })).toBe('ci-o-r-0-1')
  })
})
