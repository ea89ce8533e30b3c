/**
 * What the tunnel does with the requests it forwards, all meaningful only with `expose`: the
 * request log (`log-requests`, `log-bodies`, `log-headers`), the gate (`protect`) and the proof
 * that each URL reaches this tunnel (`prove-url`). Checked with the other options, before any
 * request, also without `expose`, so a typo fails at once rather than on the day it is used.
 */
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { optionDefault } from '../options/option-facts.js'
import { quote } from '../text/quote.js'
import {
  DEFAULT_PROTECT,
  DEFAULT_PROVE_URL,
  DEFAULT_REQUEST_LOG,
  type RequestLogConfig
} from '../tunnel/protocol.js'
import { optionNamed, readBoolean, readWholeNumber } from './option-values.js'

/** A cut far beyond any body worth reading in a log, and still a bound on the log's size. */
export const LONGEST_LOGGED_BODY_BYTES = 64 * 1024 * 1024

export interface RequestHandlingSettings {
  requestLog: RequestLogConfig
  protect: boolean
  proveUrl: boolean
}

/** What empty options give: the keeper's defaults, which the options' table also states. */
export const DEFAULT_REQUEST_HANDLING: RequestHandlingSettings = {
  requestLog: DEFAULT_REQUEST_LOG,
  protect: DEFAULT_PROTECT,
  proveUrl: DEFAULT_PROVE_URL
}

const HEADER_CHOICES = ['redacted', 'unredacted'] as const

export function readRequestHandlingSettings(options: OptionSource): RequestHandlingSettings {
  const enabled = readSwitch(options, 'log-requests')
  const bodyBytes =
    readWholeNumber(options, 'log-bodies', 0, LONGEST_LOGGED_BODY_BYTES) ??
    Number(optionDefault('log-bodies'))
  return {
    requestLog: { enabled, bodyBytes, headers: readHeaderChoice(options) },
    protect: readSwitch(options, 'protect'),
    proveUrl: readSwitch(options, 'prove-url')
  }
}

/** A true/false option; empty gives the default that the options' table states. */
function readSwitch(options: OptionSource, name: string): boolean {
  return readBoolean(options, name, optionDefault(name) === 'true')
}

function readHeaderChoice(options: OptionSource): RequestLogConfig['headers'] {
  const raw = options.read('log-headers')
  const value = raw.trim().toLowerCase() || optionDefault('log-headers')
  const choice = HEADER_CHOICES.find(known => known === value)
  if (choice !== undefined) return choice
  throw new ExplainedError(
    `${optionNamed(options, 'log-headers')} is ${quote(raw)}: expected redacted or unredacted.`
  )
}
