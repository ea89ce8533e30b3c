/**
 * What the log reader of each supported CI system obeys in a line of a job's output, in one
 * table. printable() neutralises every marker here, and the service's answer fields that are
 * printed as they are must hold none (holdsCommandMarker).
 *
 * The escape sequences some readers obey all begin with a control character, which printable()
 * escapes before it looks for these markers: Buildkite's links and timestamps (ESC ] 1339 ;,
 * ESC _ bk;), Jenkins' console notes (ESC [ 8 m ha:), GitLab's collapsible sections (a line that
 * ends in CR and ESC [ 0 K), and colours everywhere.
 */

/** `anywhere`: the reader looks through the whole line; `line-start`: only where it begins, after blanks. */
export type MarkerPlace = 'anywhere' | 'line-start'

export interface LogMarker {
  text: string
  place: MarkerPlace
}

export const LOG_COMMAND_MARKERS: Readonly<Record<string, readonly LogMarker[]>> = {
  // `::name::` after leading blanks (the runner trims them), and the older `##[name]` anywhere.
  'GitHub Actions': [
    { text: '::', place: 'line-start' },
    { text: '##[', place: 'anywhere' }
  ],
  // `##vso[area.action]` anywhere on stdout and stderr; `##[section]`, `##[group]`... format lines.
  'Azure Pipelines': [
    { text: '##vso[', place: 'anywhere' },
    { text: '##[', place: 'anywhere' }
  ],
  // Collapsible groups (`---`, `+++`, `~~~`) and `^^^ +++`, which opens the group before.
  Buildkite: [
    { text: '---', place: 'line-start' },
    { text: '+++', place: 'line-start' },
    { text: '~~~', place: 'line-start' },
    { text: '^^^', place: 'line-start' }
  ],
  // Obeyed only with CR and ESC [ 0 K after them (escaped already); refused here all the same.
  'GitLab CI': [
    { text: 'section_start:', place: 'anywhere' },
    { text: 'section_end:', place: 'anywhere' }
  ],
  Jenkins: [],
  CircleCI: [],
  'Bitbucket Pipelines': []
}

const MARKERS: readonly LogMarker[] = Object.values(LOG_COMMAND_MARKERS).flat()

// What a reader might skip between a marker's characters: an older Azure agent found `##vso[`
// with a culture-aware search, which ignores some non-ASCII characters (a combining grapheme
// joiner, say). Anything but printable ASCII counts, so no such trick survives.
const GAP = '[^\\x20-\\x7e]*'

function escapedForRegExp(character: string): string {
  return character.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

/** The marker's characters with a gap allowed between each two; case is ignored by the caller. */
function spelled(characters: string[]): string {
  return characters.map(escapedForRegExp).join(GAP)
}

/**
 * Finds the first character of each occurrence of the marker. An anywhere-marker is also found
 * cut short at the end of the text (two characters or more): the text that follows a value in a
 * line could complete it.
 */
function firstCharacterOf(marker: LogMarker): RegExp {
  const [first, ...rest] = [...marker.text]
  const completions = [spelled(rest)]
  if (marker.place === 'anywhere') {
    for (let length = 1; length < rest.length; length++) {
      completions.push(`${spelled(rest.slice(0, length))}${GAP}$`)
    }
  }
  const lookahead = `(?=${GAP}(?:${completions.join('|')}))`
  const lead = marker.place === 'line-start' ? `^([^\\x21-\\x7e]*)` : '()'
  return new RegExp(`${lead}${escapedForRegExp(first)}${lookahead}`, 'giu')
}

// Built on first need: a Unicode, case-folding pattern costs V8 a fraction of a millisecond to
// compile, and nearly every value a step prints is printable ASCII that holds no marker at all.
let neutralisers: { marker: LogMarker; pattern: RegExp }[] | undefined

// Stryker disable next-line Regex: a fast path only; the property tests compare it with the patterns
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/**
 * Whether printable-ASCII `text` may hold a marker, which the patterns then find: with no
 * character outside printable ASCII no gap can hide one, so a plain case-blind search decides.
 */
// Stryker disable all: a fast path only; a mutant that answers "may hold" more often changes no
// output, and one that misses a marker fails the property tests that compare it with the patterns
function mayHoldMarker(text: string): boolean {
  if (!PRINTABLE_ASCII.test(text)) return true
  const lower = text.toLowerCase()
  const start = lower.replace(/^ +/, '')
  return MARKERS.some(({ text: marker, place }) => {
    if (place === 'line-start') return start.startsWith(marker)
    if (lower.includes(marker)) return true
    // Cut short at the end, two characters or more, as firstCharacterOf finds it.
    for (let length = 2; length < marker.length; length++) {
      if (lower.endsWith(marker.slice(0, length))) return true
    }
    return false
  })
}
// Stryker restore all

/**
 * `text` with the first character of every marker written as a \uXXXX escape, so that the text
 * stays readable and no reader obeys it. Text with line breaks must be split first: a line-start
 * marker is looked for where the text begins.
 */
export function neutraliseMarkers(text: string): string {
  // Stryker disable next-line ConditionalExpression: the fast path; the patterns give the same text
  if (!mayHoldMarker(text)) return text
  neutralisers ??= MARKERS.map(marker => ({ marker, pattern: firstCharacterOf(marker) }))
  return neutralisers.reduce(
    (result, { pattern }) =>
      result.replace(
        pattern,
        (match, lead: string) =>
          `${lead}\\u${match.codePointAt(lead.length)!.toString(16).padStart(4, '0')}`
      ),
    text
  )
}

let anywhere: { marker: LogMarker; pattern: RegExp }[] | undefined

/** Each marker with every character, in any case and with gaps, found anywhere in `value`. */
function markersIn(value: string): LogMarker[] {
  // Stryker disable next-line ConditionalExpression,BlockStatement: the fast path; the patterns find the same
  if (PRINTABLE_ASCII.test(value)) {
    const lower = value.toLowerCase()
    return MARKERS.filter(({ text }) => lower.includes(text))
  }
  anywhere ??= MARKERS.map(marker => ({
    marker,
    pattern: new RegExp(spelled([...marker.text]), 'iu')
  }))
  return anywhere.filter(({ pattern }) => pattern.test(value)).map(({ marker }) => marker)
}

/** The first marker `value` holds anywhere (a line-start one too), or undefined. */
export function commandMarkerIn(value: string): string | undefined {
  return markersIn(value)[0]?.text
}

/** True when `value` holds a marker of any system anywhere: a value printed as it is must not. */
export function holdsCommandMarker(value: string): boolean {
  return commandMarkerIn(value) !== undefined
}

/**
 * A marker named in a message without being one: its first character apart from the rest, as in
 * `"#" followed by "#vso["`.
 */
export function describeMarker(marker: string): string {
  return `"${marker[0]}" followed by "${marker.slice(1)}"`
}

/** The first marker that a reader obeys in the middle of a line that `value` holds, or undefined. */
export function midLineMarkerIn(value: string): string | undefined {
  return markersIn(value).find(marker => marker.place === 'anywhere')?.text
}
