import { readFileSync } from 'node:fs'
import {
  credentialKinds,
  describeCredential,
  KIND_NAMES,
  readSavedCredential
} from '../../../src/core/kinds/registry.js'
import { readMainSettings } from '../../../src/core/assembly/read-main.js'

const options = (values: Record<string, string>) => ({
  read: (name: string) => values[name] ?? '',
  label: (name: string) => `--${name}`
})

describe('the table of kinds', () => {
  it('names every kind the credential option accepts, in its order', () => {
    expect(KIND_NAMES).toEqual(Object.keys(credentialKinds))
    expect(KIND_NAMES).toEqual(['cicd', 'free', 'ssh-key', 'existing'])
  })

  it('is what action.yml offers as the credential input', () => {
    const action = readFileSync(new URL('../../../action.yml', import.meta.url), 'utf8')
    const description = /\n {2}credential:\n {4}description: '(.*)'\n/.exec(action)?.[1] ?? ''
    const offered = [...description.matchAll(/`(\w[\w-]*)` \(/g)].map(match => match[1])
    expect(offered.filter(name => name !== 'auto')).toEqual(KIND_NAMES)
  })

  it('lists its names, and auto, when the credential option names none of them', () => {
    expect(() => readMainSettings(options({ credential: 'oauth' }))).toThrow(
      '--credential is "oauth": expected one of cicd, free, auto, ssh-key or existing.'
    )
  })

  it('hands each kind the options to read its own settings', () => {
    const settings = readMainSettings(
      options({
        credential: 'existing',
        'tunnel-token': 'tok_held',
        'tunnel-user': 'u1',
        'tunnel-host': 'tunnel.example.test'
      })
    )
    expect(settings).toMatchObject({ kind: 'existing', tunnelUser: 'u1', tunnelPort: 2223 })
  })
})

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
