import fc from 'fast-check'
import {
  commandMarkerIn,
  describeMarker,
  holdsCommandMarker,
  LOG_COMMAND_MARKERS,
  midLineMarkerIn,
  neutraliseMarkers
} from '../../../src/core/text/log-commands.js'
import { printable } from '../../../src/core/text/printable.js'
import { commandsObeyedIn } from '../../helpers/log-readers.js'

describe('holdsCommandMarker', () => {
  it.each([
    '##[warning]x',
    'a##[b',
    '::warning::x',
    'a::b',
    'a##vso[task.setvariable variable=x]y',
    '##VSO[task.setsecret]x',
    '#\u034f#vso[task.complete]',
    '--- group',
    'x+++y',
    'section_start:1:name'
  ])('finds a marker in %j', value => expect(holdsCommandMarker(value)).toBe(true))

  it.each(['ci-user', 'a#[b', '#[x', 'a:b', 'vso[x]', '#vso[x]', '--x', 'a-b-c'])(
    'finds none in %j',
    value => expect(holdsCommandMarker(value)).toBe(false)
  )

  it('names the marker, and tells the ones obeyed mid-line', () => {
    expect(commandMarkerIn('x ##vso[a.b]')).toBe('##vso[')
    expect(midLineMarkerIn('x ##vso[a.b]')).toBe('##vso[')
    expect(midLineMarkerIn('x ##[group]')).toBe('##[')
    expect(midLineMarkerIn('x ::a::')).toBeUndefined()
    expect(midLineMarkerIn('plain')).toBeUndefined()
  })

  it('knows every system the command-line tool supports', () => {
    expect(Object.keys(LOG_COMMAND_MARKERS).sort()).toEqual([
      'Azure Pipelines',
      'Bitbucket Pipelines',
      'Buildkite',
      'CircleCI',
      'GitHub Actions',
      'GitLab CI',
      'Jenkins'
    ])
  })
})

describe('printable against every reader', () => {
  it.each([
    'x ##vso[task.setvariable variable=SVC_BASE_URL]https://evil.example',
    '##vso[task.setsecret]x',
    'a ##VsO[task.prependpath]/tmp/evil',
    '#\u034f#vso[task.setvariable variable=A]b',
    '##[group]forged',
    '  ::add-mask::x',
    '\u034f::stop-commands::p',
    '--- forged group',
    ' +++ open',
    '^^^ +++',
    '~~~ quiet',
    'section_start:1700000000:evil\r\u001b[0K',
    '\u001b]1339;url=https://evil.example\u0007',
    '\u001b[8mha:AAAA\u001b[0m'
  ])('leaves nothing any reader obeys in %j, wherever it is printed', value => {
    const shown = printable(value)
    expect(commandsObeyedIn([shown, `  field: ${shown}`, `Error: "${shown}"`])).toEqual([])
  })

  it('leaves nothing to obey in any text, at the start of a line or after a prefix', () => {
    const piece = fc.constantFrom(
      '#',
      '##',
      '[',
      'vso',
      'VSO',
      ':',
      '::',
      '-',
      '+',
      '~',
      '^',
      ' ',
      'section_start:',
      '\u034f',
      '\u200b',
      '\u001b',
      '\r',
      'a.b]',
      'x'
    )
    const text = fc.array(piece, { maxLength: 12 }).map(pieces => pieces.join(''))
    fc.assert(
      fc.property(text, fc.integer({ min: 4, max: 80 }), (value, max) => {
        const shown = printable(value, max)
        expect(commandsObeyedIn([shown, `  ${shown}`, `Error: ${shown}`])).toEqual([])
      }),
      { seed: 20261124, numRuns: 3000 }
    )
  })

  it('answers the same for printable ASCII through its fast path as through the patterns', () => {
    // A trailing non-ASCII character sends the same text through the patterns, and changes
    // nothing a marker needs: a marker cut short at the end may be followed by a gap.
    const piece = fc.constantFrom(
      '#',
      '##',
      '[',
      'vso',
      'VSO',
      ':',
      '::',
      '-',
      '+',
      '~',
      '^',
      ' ',
      'section_',
      'SECTION_START:',
      'section_end:',
      'a.b]',
      'x',
      '---'
    )
    const ascii = fc.array(piece, { maxLength: 10 }).map(pieces => pieces.join(''))
    fc.assert(
      fc.property(ascii, value => {
        expect(`${neutraliseMarkers(value)}\u00e9`).toBe(neutraliseMarkers(`${value}\u00e9`))
        expect(commandMarkerIn(value)).toBe(commandMarkerIn(`${value}\u00e9`))
        expect(midLineMarkerIn(value)).toBe(midLineMarkerIn(`${value}\u00e9`))
      }),
      { seed: 20261126, numRuns: 3000 }
    )
  })
})

describe('neutraliseMarkers', () => {
  it('writes the first character of a mid-line marker as a \\u escape, exactly', () => {
    expect(neutraliseMarkers('a##vso[x]b')).toBe('a\\u0023#vso[x]b')
    expect(neutraliseMarkers('x section_start:1:y')).toBe('x \\u0073ection_start:1:y')
  })

  it('escapes a mid-line marker cut short where the value ends: what follows may complete it', () => {
    expect(neutraliseMarkers('value ##vs')).toBe('value \\u0023#vs')
    expect(neutraliseMarkers('value ##')).toBe('value \\u0023#')
    expect(neutraliseMarkers('value sect')).toBe('value \\u0073ect')
    expect(neutraliseMarkers('value #\u034f#v')).toBe('value \\u0023\u034f#v')
  })

  it('leaves a single character, or a start that is not at the end, alone', () => {
    expect(neutraliseMarkers('value #')).toBe('value #')
    expect(neutraliseMarkers('##v then more')).toBe('##v then more')
    expect(neutraliseMarkers('section then more')).toBe('section then more')
  })
})

describe('describeMarker', () => {
  it('names a marker without being one', () => {
    expect(describeMarker('##vso[')).toBe('"#" followed by "#vso["')
  })
})
