/**
 * docs/troubleshooting.md quotes the tunnel's own failures as the code prints them (issue 26,
 * item 12): each message below is made by the function that prints it, and the page must hold
 * its fixed words, so a reworded message fails here until the page follows.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { appWarning } from '../src/core/tunnel/main/app-check.js'
import { GATE_REALM, makeGate } from '../src/core/tunnel/keeper/http/gate.js'
import { unreachableAnswer } from '../src/core/tunnel/keeper/http/own-answers.js'
import { describeStartFailure } from '../src/core/tunnel/main/start-failure.js'
import { proofFailureMessage } from '../src/core/tunnel/main/url-proof.js'
import { explainRefusedSharedLogin } from '../src/core/share/refused-login.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const page = readFileSync(join(root, 'docs', 'troubleshooting.md'), 'utf8')
const tunnelSection = page.slice(page.indexOf("## The tunnel's own failures"))
const entry = { name: 'web', host: 'localhost', port: 3000 }

// Issue 28: a pipeline of many jobs hits the limit job by job; one credential per run is the cure.
it("advises share: create after credential-provision's 429", () => {
  const advice = page
    .split('\n\n')
    .find(paragraph => paragraph.startsWith('A 429 from `credential-provision`'))
  expect(advice).toContain('`share: create` in a setup job')
  expect(advice).toContain('([sharing.md](sharing.md))')
})

it("has a section for the tunnel's own failures", () => {
  expect(tunnelSection.length).toBeGreaterThan(100)
})

it("quotes the gate's 401: its realm and the start of its body", () => {
  const decision = makeGate('s3cret')({
    entry: 'web',
    method: 'GET',
    target: '/',
    httpVersion: '1.1',
    headers: [['Host', 'web.example']]
  })
  if (typeof decision !== 'object' || !('answer' in decision)) throw new Error('not refused')
  const body = String(decision.answer.body ?? '')
  expect(decision.answer.status).toBe(401)
  expect(tunnelSection).toContain(`realm="${GATE_REALM}"`)
  expect(tunnelSection).toContain(body.slice(0, body.indexOf(' (')))
})

it("quotes the 502 page's sentence, and main's warning before it", () => {
  const text = String(unreachableAnswer(entry, 'ECONNREFUSED').body)
    .replace(/<[^>]+>/g, '')
    .split('\n')
    .find(line => line.startsWith('The tunnel reached'))!
  expect(tunnelSection).toContain(text)
  const warning = appWarning({ entry, why: 'WHY' }, name => name)
  expect(tunnelSection).toContain(warning.slice(0, warning.indexOf('WHY')))
  expect(tunnelSection).toContain(
    warning.slice(warning.indexOf('WHY') + 'WHY'.length, warning.indexOf(' Start'))
  )
})

it("quotes a failed proof's start", () => {
  const message = proofFailureMessage(
    [{ entry: 'web', asked: 'ASKED', answer: { kind: 'timeout', ms: 1000 } }],
    'https://{name}.example',
    name => `input ${name}`
  )
  expect(tunnelSection).toContain(message.slice(0, message.indexOf('ASKED')))
  expect(tunnelSection).toContain("not the tunnel's own answer. Check input url-template (")
})

it('quotes the refusal of a host key that differs', () => {
  const detail =
    "the tunnel server's host key is SHA256:KEY, which input tunnel-host-key does not list"
  const message = describeStartFailure(
    { type: 'failed', cause: 'host-key', detail },
    '',
    'RUNNER_TEMP',
    { hostKeyOption: 'input tunnel-host-key' }
  )
  const start = message.slice(0, message.indexOf('SHA256:KEY'))
  const end = message.slice(
    message.indexOf('SHA256:KEY') + 'SHA256:KEY'.length,
    message.indexOf(' If the')
  )
  expect(tunnelSection).toContain(start)
  expect(tunnelSection).toContain(end)
})

it('quotes the causes it names for a refused login under share: use', () => {
  const said = (
    standing: Parameters<typeof explainRefusedSharedLogin>[0],
    from: string,
    to: string
  ) => {
    const message = explainRefusedSharedLogin(standing, 'DETAIL', name => `input ${name}`)
    const [start, end] = [message.indexOf(from), message.indexOf(to)]
    // Words that moved would slice nothing, which any page contains.
    if (start < 0 || end <= start) throw new Error(`"${from}" … "${to}" not in: ${message}`)
    return message.slice(start, end)
  }
  expect(tunnelSection).toContain(said({ state: 'gone' }, 'The service no', ' (the final'))
  expect(tunnelSection).toContain(said({ state: 'active' }, 'The service lists', ', and each'))
  expect(tunnelSection).toContain(
    said({ state: 'unknown', why: 'WHY' }, 'The service could', ' (WHY')
  )
})

it('quotes the refusal of a forward for the per-user limit the server told', () => {
  const message = describeStartFailure(
    {
      type: 'failed',
      cause: 'forward',
      name: 'web-5',
      forwardLimit: 5,
      detail:
        'the tunnel server refused the forward for "web-5": it allows at most 5 forwards per tunnel user (all jobs sharing the credential count)'
    },
    '',
    'RUNNER_TEMP'
  )
  expect(tunnelSection).toContain(message)
})

it('quotes the refusal of a forward whose name the server said is taken', () => {
  const message = describeStartFailure(
    {
      type: 'failed',
      cause: 'forward',
      name: 'web-1',
      nameTaken: true,
      detail:
        'the tunnel server refused the forward for "web-1": the name is in use by another tunnel'
    },
    '',
    'RUNNER_TEMP',
    { exposeOption: 'input expose' }
  )
  expect(tunnelSection).toContain(message)
})
