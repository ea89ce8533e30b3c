/**
 * One option read as a typed value: every error names the option as the host labels it
 * (`Input ttl-minutes` for the action, `--ttl-minutes` on a command line) and quotes the value.
 */
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { quote } from '../text/quote.js'
import { describeMarker, midLineMarkerIn } from '../text/log-commands.js'

/** The option's label at the start of a sentence: `Input project`, `--project`, `SVC_PROJECT`. */
export function optionNamed(options: OptionSource, name: string): string {
  return capitalised(options.label(name))
}

/** A label or phrase at the start of a sentence. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

export function readBoolean(options: OptionSource, name: string, fallback: boolean): boolean {
  const raw = options.read(name)
  const value = raw.trim().toLowerCase()
  if (!value) return fallback
  if (value === 'true') return true
  if (value === 'false') return false
  throw new ExplainedError(
    `${optionNamed(options, name)} is ${quote(raw)}: expected true or false.`
  )
}

/** Undefined when the option is empty. */
export function readWholeNumber(
  options: OptionSource,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER
): number | undefined {
  const raw = options.read(name)
  const value = raw.trim()
  if (!value) return undefined
  const number = /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER
        ? `a whole number of at least ${min}`
        : `a whole number from ${min} to ${max}`
    throw new ExplainedError(`${optionNamed(options, name)} is ${quote(raw)}: expected ${range}.`)
  }
  return number
}

/**
 * A value that is printed and sent as it is. Line breaks and control characters were refused with
 * the raw text (checkedOptions); `##[` and `##vso[` are plain text, but log readers obey them
 * anywhere in a line.
 */
export function readOneLine(options: OptionSource, name: string): string {
  const value = options.read(name).trim()
  const marker = midLineMarkerIn(value)
  if (marker !== undefined) {
    throw new ExplainedError(
      `${optionNamed(options, name)} is ${quote(value)}: it holds ${describeMarker(marker)}, which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`
    )
  }
  return value
}
