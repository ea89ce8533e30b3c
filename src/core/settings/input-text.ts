/**
 * The raw text of every input, checked before anything parses it. Parsers such as `new URL()`
 * silently drop tabs and line breaks, so a value can pass them and still carry a line break into
 * the log, an output or GITHUB_ENV, where the runner reads it as a workflow command.
 */
import { MULTI_LINE_OPTION_NAMES, SECRET_OPTION_NAMES } from '../options/option-facts.js'
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { optionNamed } from './option-values.js'
import { quote } from '../text/quote.js'

/** Inputs that are lists, one item a line: each line is checked as a single-line input. */
const MULTI_LINE_INPUTS: ReadonlySet<string> = new Set(MULTI_LINE_OPTION_NAMES)
/** Inputs that are secrets: an error names the input and never shows any of its value. */
const SECRET_INPUTS: ReadonlySet<string> = new Set(SECRET_OPTION_NAMES)

// C0 and C1 controls and DEL; the line and paragraph separators; bidirectional controls, which
// make a line read differently from what it holds; lone surrogates, which UTF-8 cannot carry.
const FORBIDDEN = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u
// The same without the tab: a line of a list may be indented or split with tabs, as a
// known_hosts line may be, and its parser reads a tab as a blank.
const FORBIDDEN_IN_LIST_LINE =
  /(?!\t)[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/** The options main parses, with every value's text checked first (see checkOptionText). */
export function checkedOptions(options: OptionSource): OptionSource {
  return {
    read: name => {
      const value = options.read(name)
      checkOptionText(options, name, value)
      return value
    },
    label: name => options.label(name)
  }
}

/** Throws an ExplainedError naming the option, and where and what the character is, if it holds one. */
function checkOptionText(options: OptionSource, name: string, value: string): void {
  if (PRINTABLE_ASCII.test(value)) return
  if (!MULTI_LINE_INPUTS.has(name)) {
    const at = value.search(FORBIDDEN)
    if (at !== -1) throw badText(optionNamed(options, name), SECRET_INPUTS.has(name), value, at)
    return
  }
  // CRLF from a file edited on Windows is still one line break.
  const lines = value.split(/\r?\n/)
  for (const [index, line] of lines.entries()) {
    const at = line.search(FORBIDDEN_IN_LIST_LINE)
    if (at !== -1) throw badText(optionNamed(options, name), false, line, at, index + 1)
  }
}

function badText(
  label: string,
  secret: boolean,
  text: string,
  at: number,
  line?: number
): ExplainedError {
  const kind = describeCharacter(text, at)
  if (secret) {
    // Neither the value nor where in it: it is a secret, even when malformed.
    return new ExplainedError(
      `${label} holds ${kind}: check that the secret holds the value alone, on one line, with nothing pasted around it.`
    )
  }
  const what = line === undefined ? `${label} is` : `${label}, line ${line}, is`
  const advice =
    line === undefined
      ? 'Set it to a single line of plain text.'
      : 'Write each entry as plain text on a line of its own.'
  return new ExplainedError(
    `${what} ${quote(text)}: it holds ${kind} at character ${at + 1}. ${advice}`
  )
}

function describeCharacter(text: string, at: number): string {
  const code = text.charCodeAt(at)
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  if (code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029) {
    return `a line break (${hex})`
  }
  if (code >= 0xd800 && code <= 0xdfff) return `an unpaired UTF-16 surrogate (${hex})`
  if (code <= 0x9f) return `a control character (${hex})`
  return `a bidirectional text control (${hex})`
}
