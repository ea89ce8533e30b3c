/**
 * The URL proof's client against small local servers: one that answers as the keeper does
 * (proofAnswer with the run's key), and ones that answer anything else.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PROOF_PATH_PREFIX, proofAnswer } from '../../../../src/core/tunnel/protocol.js'
import {
  describeAnswer,
  proofFailureMessage,
  proveUrls,
  type ProofOptions
} from '../../../../src/core/tunnel/main/url-proof.js'
import { commandsObeyedIn } from '../../../helpers/log-readers.js'

const KEY = 'ab'.repeat(32)
type Handler = (request: IncomingMessage, response: ServerResponse) => void
const servers: Server[] = []

afterAll(async () => {
  await Promise.all(servers.map(server => new Promise(resolve => server.close(resolve))))
})

/** A server on 127.0.0.1; resolves its port and the requests it saw. */
async function serve(handler: Handler): Promise<{ port: number; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = []
  const server = createServer((request, response) => {
    seen.push(request)
    handler(request, response)
  })
  servers.push(server)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, seen }
}

/** Answers as this run's keeper does: the proof for the entry `entry`, from the path's nonce. */
const keeperLike =
  (entry: string, key = KEY): Handler =>
  (request, response) => {
    const path = request.url ?? ''
    const at = path.lastIndexOf(PROOF_PATH_PREFIX)
    if (at === -1) return void response.writeHead(404).end('not a proof')
    const nonce = path.slice(at + PROOF_PATH_PREFIX.length)
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end(proofAnswer(key, entry, nonce))
  }

const sleeps: number[] = []
const options = (urls: Record<string, string>): ProofOptions => ({
  proofKey: KEY,
  urls,
  now: () => 0,
  sleep: async ms => void sleeps.push(ms),
  attemptTimeoutMs: 2_000
})

beforeEach(() => void sleeps.splice(0))

describe('proveUrls', () => {
  it('proves URLs that reach a server holding the key, asking each with a fresh nonce', async () => {
    const web = await serve(keeperLike('web'))
    const api = await serve(keeperLike('api'))
    const failures = await proveUrls(
      options({
        web: `http://127.0.0.1:${web.port}/`,
        // A template may put a path before the proof's.
        api: `http://127.0.0.1:${api.port}/api`
      })
    )
    expect(failures).toEqual([])
    expect(web.seen.map(r => r.url)).toEqual([
      expect.stringMatching(/^\/\.well-known\/tunnel-credentials-proof\/[0-9a-f]{32}$/)
    ])
    expect(api.seen.map(r => r.url)).toEqual([
      expect.stringMatching(/^\/api\/\.well-known\/tunnel-credentials-proof\/[0-9a-f]{32}$/)
    ])
    // No key or secret of any kind goes with it.
    for (const request of [...web.seen, ...api.seen]) {
      expect(Object.keys(request.headers)).not.toContain('authorization')
      expect(Object.keys(request.headers)).not.toContain('x-api-key')
    }
    expect(sleeps).toEqual([])
  })

  it('reaches names under .localhost on the loopback, as browsers do', async () => {
    const web = await serve(keeperLike('web'))
    expect(await proveUrls(options({ web: `http://web-u1.localhost:${web.port}` }))).toEqual([])
    expect(web.seen[0].headers.host).toBe(`web-u1.localhost:${web.port}`)
  })

  it('fails at once on a server that answers 200 with something else', async () => {
    const other = await serve((_q, response) =>
      response.writeHead(200, { Server: 'other-app/1.0' }).end('<html>welcome</html>')
    )
    const [failure, ...rest] = await proveUrls(options({ web: `http://127.0.0.1:${other.port}` }))
    expect(rest).toEqual([])
    expect(failure).toMatchObject({ entry: 'web', answer: { kind: 'answer', status: 200 } })
    expect(describeAnswer(failure.answer)).toContain('other-app/1.0')
    expect(describeAnswer(failure.answer)).toContain('welcome')
    expect(other.seen).toHaveLength(1)
  })

  it('fails on an answer computed with another key (another run, or an echo)', async () => {
    const other = await serve(keeperLike('web', 'cd'.repeat(32)))
    const failures = await proveUrls(options({ web: `http://127.0.0.1:${other.port}` }))
    expect(failures.map(f => f.entry)).toEqual(['web'])
  })

  it('fails on the right answer for another entry', async () => {
    const other = await serve(keeperLike('api'))
    const failures = await proveUrls(options({ web: `http://127.0.0.1:${other.port}` }))
    expect(failures.map(f => f.entry)).toEqual(['web'])
  })

  it('asks again while the name is not served yet, and passes once it is', async () => {
    let calls = 0
    const proof = keeperLike('web')
    const warming = await serve((request, response) => {
      calls += 1
      if (calls < 3) return void response.writeHead(502).end('no route yet')
      proof(request, response)
    })
    expect(await proveUrls(options({ web: `http://127.0.0.1:${warming.port}` }))).toEqual([])
    expect(calls).toBe(3)
    expect(sleeps).toHaveLength(2)
  })

  it('gives up after its tries when nothing listens, saying what went wrong', async () => {
    const closed = await serve(() => undefined)
    const port = closed.port
    await new Promise(resolve => servers.pop()!.close(resolve))
    const [failure] = await proveUrls(options({ web: `http://127.0.0.1:${port}` }))
    expect(failure.answer).toMatchObject({ kind: 'network' })
    expect(describeAnswer(failure.answer)).toContain('ECONNREFUSED')
    expect(sleeps.length).toBeGreaterThan(1)
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(20_000)
  })

  it('stops asking once the window has passed', async () => {
    const closed = await serve(() => undefined)
    const port = closed.port
    await new Promise(resolve => servers.pop()!.close(resolve))
    let now = 0
    const failures = await proveUrls({
      ...options({ web: `http://127.0.0.1:${port}` }),
      now: () => now,
      sleep: async ms => void (sleeps.push(ms), (now += ms)),
      windowMs: 2_500
    })
    expect(failures).toHaveLength(1)
    expect(sleeps).toEqual([1_000])
  })

  it('bounds each try by its time limit', async () => {
    const silent = await serve(() => undefined)
    const started = Date.now()
    const [failure] = await proveUrls({
      ...options({ web: `http://127.0.0.1:${silent.port}` }),
      attemptTimeoutMs: 300,
      pauses: []
    })
    expect(failure.answer).toEqual({ kind: 'timeout', ms: 300 })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('does not follow a redirect', async () => {
    const target = await serve(keeperLike('web'))
    const redirecting = await serve((_q, response) =>
      response.writeHead(301, { Location: `http://127.0.0.1:${target.port}/` }).end()
    )
    const [failure] = await proveUrls(options({ web: `http://127.0.0.1:${redirecting.port}` }))
    expect(failure.answer).toMatchObject({ kind: 'answer', status: 301 })
    expect(describeAnswer(failure.answer)).toContain(`http://127.0.0.1:${target.port}/`)
    expect(target.seen).toEqual([])
  })
})

describe('proofFailureMessage', () => {
  it('names url-template as the host labels it, the URL asked, what answered, and prove-url', async () => {
    const other = await serve((_q, response) =>
      response.writeHead(200, { Server: 'nginx' }).end('::set-output name=x::1 ##[error]boom')
    )
    const failures = await proveUrls(
      options({ web: `http://127.0.0.1:${other.port}`, api: `http://127.0.0.1:${other.port}` })
    )
    const message = proofFailureMessage(failures, 'http://{name}.example', name => `--${name}`)
    expect(message).toContain('--url-template')
    expect(message).toContain('--prove-url')
    expect(message).toContain(failures[0].asked)
    expect(message).toContain('nginx')
    expect(message).toContain('"api"')
    // What answered is outside text: no log reader may obey it.
    expect(commandsObeyedIn([message])).toEqual([])
  })
})
