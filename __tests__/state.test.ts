import { readSavedCredential } from '../src/state.js'

describe('readSavedCredential', () => {
  it.each([
    [{ kind: 'cicd', tunnelUser: 'u', expiresAt: 'x' }],
    [{ kind: 'free', tunnelUser: 'u' }],
    [{ kind: 'existing', tunnelUser: 'u' }],
    [{ kind: 'ssh-key', keyId: 'k', fingerprint: 'SHA256:f', keyFolder: '/tmp/f', expiresAt: 'x' }],
    [{ kind: 'ssh-key', keyId: 'k', fingerprint: 'SHA256:f' }]
  ])('reads back %j as it was saved', saved => {
    expect(readSavedCredential(JSON.parse(JSON.stringify(saved)))).toEqual(saved)
  })

  it('keeps only the fields of the kind', () => {
    expect(
      readSavedCredential({ kind: 'existing', tunnelUser: 'u', token: 'tok_x', expiresAt: 'x' })
    ).toEqual({ kind: 'existing', tunnelUser: 'u' })
  })

  it.each([
    [null],
    ['cicd'],
    [{ kind: 'gold', tunnelUser: 'u' }],
    [{ kind: 'cicd' }],
    [{ kind: 'cicd', tunnelUser: 7 }],
    [{ kind: 'ssh-key', keyId: 'k' }],
    [{ kind: 'ssh-key', fingerprint: 'SHA256:f' }]
  ])('reads %j as nothing saved', value => {
    expect(readSavedCredential(value)).toBeUndefined()
  })
})
