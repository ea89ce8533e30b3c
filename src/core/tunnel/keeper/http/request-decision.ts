/**
 * One request head read from the client and decided: parsed strictly (rules.ts), shown to the
 * hooks (the gate, the proof), then either answered by the tunnel process or passed on, maybe
 * with another target and fewer fields.
 */
import { Exchange } from './exchange.js'
import type { BodyFraming, FramingError } from './framing.js'
import type { HttpHooks, RequestHead } from './hooks.js'
import { malformedAnswer, serializeAnswer } from './own-answers.js'
import * as rules from './rules.js'

export interface DecidedRequest {
  exchange: Exchange
  framing: BodyFraming
  /** The head to send the app; undefined when the tunnel process answers (exchange.ownAnswer). */
  toApp: Buffer | undefined
}

export function decideRequest(
  bytes: Buffer,
  entry: string,
  client: string | undefined,
  hooks: HttpHooks
): DecidedRequest {
  const head = rules.parseHead(bytes)
  const line = rules.parseRequestLine(head.startLine)
  const framing = rules.requestFraming(head.headers)
  const request: RequestHead = { entry, client, ...line, headers: head.headers }
  const exchange = new Exchange(request, bytes.length, hooks.captureBodyBytes ?? 0)
  const decision = hooks.decide?.(request) ?? 'forward'
  if (typeof decision === 'object' && 'answer' in decision) {
    const { answer, outcome } = decision
    exchange.answerLocally(serializeAnswer(answer), answer.status, outcome)
    return { exchange, framing, toApp: undefined }
  }
  exchange.switches = rules.asksToSwitch(line.method, head.headers)
  if (decision === 'forward') return { exchange, framing, toApp: bytes }
  const { target = line.target, removeHeaders = [], addHeaders = [] } = decision.forward
  const removed = new Set(removeHeaders.map(name => name.toLowerCase()))
  const headers = [
    ...head.headers.filter(([name]) => !removed.has(name.toLowerCase())),
    ...addHeaders
  ]
  exchange.request = { ...request, target, headers }
  const toApp = rules.rewriteHead(head, line, target, removeHeaders, addHeaders)
  return { exchange, framing, toApp }
}

/** Bytes that do not frame as HTTP/1.1: answered 400 (or 431), recorded as not HTTP. */
export function malformedRequest(
  entry: string,
  client: string | undefined,
  error: FramingError
): Exchange {
  const request = { entry, client, method: '', target: '', httpVersion: '', headers: [] }
  const exchange = new Exchange(request, 0, 0)
  const answer = malformedAnswer(error.status, error.message)
  exchange.answerLocally(serializeAnswer(answer), error.status, 'not-http')
  return exchange
}
