import { readKindChoice } from '../../../src/core/assembly/choice.js'
import { optionsFrom } from '../../helpers/options.js'

describe('readKindChoice', () => {
  it.each([
    [{}, { kind: 'cicd', auto: false }],
    [{ credential: ' SSH-Key ' }, { kind: 'ssh-key', auto: false }],
    [{ credential: 'auto' }, { kind: 'free', auto: true }],
    [
      { credential: 'auto', 'api-key': 'sk_x' },
      { kind: 'cicd', auto: true }
    ]
  ])('reads %j as %j', (values, choice) => {
    expect(readKindChoice(optionsFrom(values))).toStrictEqual(choice)
  })

  it('lists every kind and auto, naming the option as the host does', () => {
    expect(() => readKindChoice(optionsFrom({ credential: 'oidc' }, n => `--${n}`))).toThrow(
      '--credential is "oidc": expected one of cicd, free, auto, ssh-key or existing.'
    )
  })
})

describe('readKindChoice for auto', () => {
  it('takes an API key of blanks for none', () => {
    expect(readKindChoice(optionsFrom({ credential: ' AUTO ', 'api-key': '  ' }))).toStrictEqual({
      kind: 'free',
      auto: true
    })
  })
})
