import { describeCredential } from '../../../src/core/kinds/registry.js'

describe('describeCredential', () => {
  it.each([
    [{ kind: 'cicd', tunnelUser: 'ab12c' }, 'the tunnel token of user ab12c'],
    [{ kind: 'free', tunnelUser: 'free-1' }, 'the free credential of user free-1'],
    [{ kind: 'existing', tunnelUser: 'held-1' }, 'the tunnel token of user held-1'],
    [
      { kind: 'ssh-key', keyId: 'k-1', fingerprint: 'SHA256:abc' },
      'the SSH key SHA256:abc (id k-1)'
    ]
  ] as const)('names %j as post messages do', (saved, words) => {
    expect(describeCredential(saved)).toBe(words)
  })
})
