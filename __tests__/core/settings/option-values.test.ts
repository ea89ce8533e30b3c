import {
  capitalised,
  optionNamed,
  readBoolean,
  readOneLine,
  readWholeNumber
} from '../../../src/core/settings/option-values.js'
import { optionsFrom } from '../../helpers/options.js'

const cli = (name: string) => `--${name}`

describe('naming an option', () => {
  it('starts a sentence with the label the host gives', () => {
    expect(optionNamed(optionsFrom({}), 'api-key')).toBe('Input api-key')
    expect(optionNamed(optionsFrom({}, cli), 'api-key')).toBe('--api-key')
    expect(
      optionNamed(
        optionsFrom({}, () => 'SVC_API_KEY'),
        'api-key'
      )
    ).toBe('SVC_API_KEY')
    expect(capitalised('the SSH key')).toBe('The SSH key')
  })
})

describe('readBoolean', () => {
  it.each([
    ['', true],
    [' TRUE ', true],
    ['False', false]
  ])('reads %j', (value, expected) => {
    expect(readBoolean(optionsFrom({ revoke: value }), 'revoke', true)).toBe(expected)
  })
  it('names the option and quotes the value it refuses', () => {
    expect(() => readBoolean(optionsFrom({ revoke: 'yes' }, cli), 'revoke', true)).toThrow(
      '--revoke is "yes": expected true or false.'
    )
  })
})

describe('readWholeNumber', () => {
  const read = (value: string, max?: number) =>
    readWholeNumber(optionsFrom({ n: value }, cli), 'n', 1, max)
  it('reads a number in range, and nothing from an empty option', () => {
    expect(read(' 45 ')).toBe(45)
    expect(read('')).toBeUndefined()
  })
  it.each([
    ['0', 10, '--n is "0": expected a whole number from 1 to 10.'],
    ['11', 10, '--n is "11": expected a whole number from 1 to 10.'],
    ['1.5', undefined, '--n is "1.5": expected a whole number of at least 1.'],
    [
      '9'.repeat(20),
      undefined,
      `--n is "${'9'.repeat(20)}": expected a whole number of at least 1.`
    ]
  ])('refuses %j', (value, max, message) => {
    expect(() => read(value, max)).toThrow(message)
  })
})

describe('readOneLine', () => {
  it('trims, and refuses the marker the runner obeys anywhere in a line', () => {
    expect(readOneLine(optionsFrom({ project: ' web ' }), 'project')).toBe('web')
    expect(() => readOneLine(optionsFrom({ project: 'a##[b' }, cli), 'project')).toThrow(
      /^--project is ".*": it holds "#" followed by "#\["/
    )
  })
})
