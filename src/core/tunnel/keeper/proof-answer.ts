/**
 * The keeper's side of the URL proof (`prove-url`): main asks each entry's public URL for
 * PROOF_PATH_PREFIX + nonce, and the keeper answers it itself, without the app, with a keyed
 * answer only this process can compute. A url-template may put a path before the prefix, so the
 * last occurrence counts. Answered before the gate: main holds no gate form when it asks.
 */
import { PROOF_PATH_PREFIX, proofAnswer } from '../protocol.js'
import type { RequestDecision, RequestHead } from './http/hooks.js'

/** Main sends 16 random bytes in hex; anything that is not hex, or too long, gets no answer. */
const NONCE = /^[0-9a-f]{1,128}$/i

const notFound: RequestDecision = {
  answer: {
    status: 404,
    headers: [['Cache-Control', 'no-store']],
    body: 'Not a proof request this tunnel answers.\n'
  },
  outcome: 'proof'
}

export interface ProofDecision {
  decision: RequestDecision
  /** A proof was answered with its keyed answer (not a 404 for a malformed nonce). */
  answered: boolean
}

/** The decision for a proof request, or undefined when the request is not one. */
export function answerProof(proofKey: string, request: RequestHead): ProofDecision | undefined {
  const query = request.target.indexOf('?')
  const path = query < 0 ? request.target : request.target.slice(0, query)
  const at = path.lastIndexOf(PROOF_PATH_PREFIX)
  if (at < 0) return undefined
  const nonce = path.slice(at + PROOF_PATH_PREFIX.length)
  if (!NONCE.test(nonce)) return { decision: notFound, answered: false }
  return {
    decision: {
      answer: {
        status: 200,
        headers: [
          ['Content-Type', 'text/plain; charset=utf-8'],
          ['Cache-Control', 'no-store']
        ],
        body: proofAnswer(proofKey, request.entry, nonce)
      },
      outcome: 'proof'
    },
    answered: true
  }
}
