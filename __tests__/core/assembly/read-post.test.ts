import { readPostSettings } from '../../../src/core/assembly/read-post.js'
import { readMainSettings } from '../../../src/core/assembly/read-main.js'
import { optionsFrom as reader } from '../../helpers/options.js'

const KEY = `sk_${'ab'.repeat(32)}`

describe('readPostSettings', () => {
  it('reads what the post step needs, with defaults', () => {
    expect(
      readPostSettings(reader({ 'api-key': KEY, 'base-url': 'https://s.test' }))
    ).toStrictEqual({
      optionLabel: expect.any(Function),
      kind: 'cicd',
      apiKey: KEY,
      baseUrl: 'https://s.test/functions/v1',
      revoke: true,
      failOnRevokeError: false,
      http: { maxAttempts: 3, timeoutSeconds: 30 }
    })
    expect(
      readPostSettings(reader({ 'fail-on-revoke-error': 'TRUE', 'base-url': 'https://s.test' }))
        .failOnRevokeError
    ).toBe(true)
  })

  it('takes the kind from the inputs, as main chose it', () => {
    const base = { 'base-url': 'https://s.test' }
    expect(readPostSettings(reader({ ...base, credential: 'auto' })).kind).toBe('free')
    expect(readPostSettings(reader({ ...base, credential: 'auto', 'api-key': KEY })).kind).toBe(
      'cicd'
    )
    expect(readPostSettings(reader({ ...base, credential: 'free', 'api-key': KEY })).kind).toBe(
      'free'
    )
  })

  it('reads no base-url for existing, which sends no request', () => {
    expect(readPostSettings(reader({ credential: 'existing' }))).not.toHaveProperty('baseUrl')
    expect(
      readPostSettings(reader({ credential: 'ssh-key', 'base-url': 'https://s.test' }))
    ).toMatchObject({
      kind: 'ssh-key',
      baseUrl: 'https://s.test/functions/v1'
    })
  })

  it('validates base-url as main does', () => {
    expect(() => readPostSettings(reader({ 'base-url': 'http://svc.example.test' }))).toThrow(
      /it must use https/
    )
  })
})

describe('the settings name options as the host does', () => {
  it('labels an option for messages, in post and in main', () => {
    const cli = (name: string) => `--${name}`
    const options = reader({ credential: 'free', 'base-url': 'https://s.test' }, cli)
    expect(readPostSettings(options).optionLabel('revoke')).toBe('--revoke')
    expect(readMainSettings(options).optionLabel('export-env')).toBe('--export-env')
  })
})

it('trims the API key post sends', () => {
  expect(
    readPostSettings(reader({ 'api-key': ` ${KEY} `, 'base-url': 'https://s.test' })).apiKey
  ).toBe(KEY)
})
