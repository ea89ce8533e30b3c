import {
  holdsCommandMarker,
  LEGACY_COMMAND_MARKER
} from '../../../src/core/text/workflow-command.js'

describe('holdsCommandMarker', () => {
  it.each(['##[warning]x', 'a##[b', '::warning::x', 'a::b'])('finds a marker in %j', value =>
    expect(holdsCommandMarker(value)).toBe(true)
  )

  it.each(['ci-user', 'a#[b', '#[x', 'a:b'])('finds none in %j', value =>
    expect(holdsCommandMarker(value)).toBe(false)
  )

  it('names the older form the runner obeys anywhere in a line', () => {
    expect(LEGACY_COMMAND_MARKER).toBe('##[')
  })
})
