import { readSavedCredential } from '../../src/core/saved-credential.js'

describe('readSavedCredential', () => {
  it.each([
    [{ kind: 'cicd', tunnelUser: 'u', expiresAt: 'x', baseUrl: 'https://s', rejected: true }],
    [{ kind: 'free', tunnelUser: 'u' }],
    [{ kind: 'existing', tunnelUser: 'u' }],
    [{ kind: 'ssh-key', keyId: 'k', fingerprint: 'SHA256:f', keyFolder: '/tmp/f', expiresAt: 'x' }],
    [{ kind: 'ssh-key', keyId: 'k', fingerprint: 'SHA256:f', rejected: true }]
  ])('reads back %j as it was saved', saved => {
    expect(readSavedCredential(saved.kind as 'cicd', JSON.parse(JSON.stringify(saved)))).toEqual(
      saved
    )
  })

  it('reads state as the kind the inputs name, not the kind it claims', () => {
    expect(readSavedCredential('cicd', { kind: 'free', tunnelUser: 'u' })).toEqual({
      kind: 'cicd',
      tunnelUser: 'u'
    })
    expect(readSavedCredential('ssh-key', { kind: 'cicd', tunnelUser: 'u' })).toBeUndefined()
  })

  it('keeps only the fields of the kind', () => {
    expect(
      readSavedCredential('existing', { tunnelUser: 'u', token: 'tok_x', expiresAt: 'x' })
    ).toEqual({ kind: 'existing', tunnelUser: 'u' })
  })

  it.each([
    ['cicd', null],
    ['cicd', 'cicd'],
    ['cicd', [{ tunnelUser: 'u' }]],
    ['cicd', { kind: 'cicd' }],
    ['cicd', { kind: 'cicd', tunnelUser: 7 }],
    ['cicd', { kind: 'cicd', tunnelUser: 'a\nb' }],
    ['ssh-key', { kind: 'ssh-key', keyId: 'k' }],
    ['ssh-key', { kind: 'ssh-key', keyId: 'k', fingerprint: 'SHA256 f' }]
  ] as const)('reads %s state %j as nothing saved', (kind, value) => {
    expect(readSavedCredential(kind, value)).toBeUndefined()
  })

  it.each([
    [{ kind: 'ssh-key', fingerprint: 'SHA256:f', keyName: 'ci-1', rejected: true }],
    [{ kind: 'ssh-key', keyId: 'k 1', fingerprint: 'SHA256:f', keyName: 'ci 1' }]
  ])('reads ssh-key state without a usable key id as a key to find by fingerprint: %j', value => {
    const saved = readSavedCredential('ssh-key', value)
    expect(saved).toMatchObject({ kind: 'ssh-key', fingerprint: 'SHA256:f' })
    expect(saved).not.toHaveProperty('keyId')
  })
})
