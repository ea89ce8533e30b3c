/**
 * `replay` through main(), as bin.ts calls it, against a local app that records what it gets:
 * the requests that arrive (order, method, target, headers, body bytes), the exit code, and
 * what a CI log reader would make of the lines printed.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { main } from '../../src/cli/index.js'
import { commandsObeyedIn } from '../helpers/log-readers.js'
import { makeThrowawayCertificate } from '../../scripts/throwaway-certificate.js'

interface Arrived {
  method: string
  target: string
  rawHeaders: [string, string][]
  body: Buffer
}

let app: Server
let appUrl: string
let arrived: Arrived[]
/** The status the app answers for a path (without query); 200 otherwise. */
let answers: Map<string, number>
let work: string

beforeAll(async () => {
  app = createServer((request, response) => {
    void collect(request).then(body => {
      const target = request.url ?? ''
      arrived.push({ method: request.method ?? '', target, rawHeaders: pairs(request), body })
      if (target.startsWith('/hang')) return // never answers: the replay's timeout ends it
      response.statusCode = answers.get(target.split('?')[0]) ?? 200
      response.end('answer')
    })
  })
  await new Promise<void>(resolve => app.listen(0, '127.0.0.1', resolve))
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
})
afterAll(async () => {
  app.closeAllConnections()
  await new Promise(resolve => app.close(resolve))
})
beforeEach(() => {
  arrived = []
  answers = new Map()
  work = mkdtempSync(join(tmpdir(), 'cli-replay-'))
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

function collect(request: IncomingMessage): Promise<Buffer> {
  return new Promise(resolve => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks)))
  })
}

function pairs(request: IncomingMessage): [string, string][] {
  const raw = request.rawHeaders
  return Array.from({ length: raw.length / 2 }, (_, i) => [raw[2 * i], raw[2 * i + 1]])
}

interface EntrySpec {
  method?: string
  url: string
  headers?: [string, string][]
  status?: number
  postData?: Record<string, unknown>
  bodySize?: number
  tunnel?: unknown
}

function entry(spec: EntrySpec): Record<string, unknown> {
  return {
    startedDateTime: '2024-05-02T10:00:00.000Z',
    time: 3,
    request: {
      method: spec.method ?? 'GET',
      url: spec.url,
      httpVersion: 'HTTP/1.1',
      headers: (spec.headers ?? []).map(([name, value]) => ({ name, value })),
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: spec.bodySize ?? 0,
      ...(spec.postData && { postData: spec.postData })
    },
    response: {
      status: spec.status ?? 200,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: 0, mimeType: 'text/plain' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 0
    },
    cache: {},
    timings: { send: 0, wait: 2, receive: 1 },
    ...(spec.tunnel !== undefined && { _tunnel: spec.tunnel })
  }
}

function harFile(entries: Record<string, unknown>[], name = 'requests.har'): string {
  const path = join(work, name)
  const har = { log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }
  writeFileSync(path, JSON.stringify(har))
  return path
}

interface Ran {
  code: number
  stdout: string[]
  stderr: string[]
}

async function replay(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await main(['replay', ...args], env, {
    stdout: line => stdout.push(line),
    stderr: line => stderr.push(line)
  })
  return { code, stdout, stderr }
}

const BINARY = Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x80, 0x7f, 0x1b, 0xc3, 0x28])
const PUBLIC_HOST = 'web-u123.tunnel.example.com'

describe('replay sends the recorded requests', () => {
  it('in order, with method, target, headers and body byte for byte; exit 0 when every class matches', async () => {
    const signed = '{"event":"paid","amount":1200}\r\n\u00e9'
    const file = harFile([
      entry({
        method: 'POST',
        url: `https://${PUBLIC_HOST}/webhooks/stripe?attempt=1&attempt=2`,
        headers: [
          ['Host', PUBLIC_HOST],
          ['Content-Type', 'application/json'],
          ['Stripe-Signature', 't=1,v1=abc'],
          ['X-Dup', 'one'],
          ['x-dup', 'two'],
          ['Content-Length', String(Buffer.byteLength(signed))]
        ],
        bodySize: Buffer.byteLength(signed),
        postData: { mimeType: 'application/json', text: signed }
      }),
      entry({ url: `https://${PUBLIC_HOST}/a/../b/%2e%2E/c?q=%20x`, status: 204 }),
      entry({
        method: 'PUT',
        url: `https://${PUBLIC_HOST}/upload`,
        headers: [['Content-Type', 'application/octet-stream']],
        bodySize: BINARY.length,
        postData: {
          mimeType: 'application/octet-stream',
          text: BINARY.toString('base64'),
          encoding: 'base64'
        }
      })
    ])
    answers.set('/a/../b/%2e%2E/c', 204)
    const ran = await replay([file, '--to', appUrl])

    expect(ran.stderr).toEqual([])
    expect(ran.code).toBe(0)
    expect(arrived.map(r => `${r.method} ${r.target}`)).toEqual([
      'POST /webhooks/stripe?attempt=1&attempt=2',
      'GET /a/../b/%2e%2E/c?q=%20x',
      'PUT /upload'
    ])
    expect(arrived[0].body.equals(Buffer.from(signed, 'utf8'))).toBe(true)
    expect(arrived[2].body.equals(BINARY)).toBe(true)
    const sent = arrived[0].rawHeaders.filter(([name]) => name.toLowerCase() !== 'connection')
    expect(sent).toEqual([
      ['Host', PUBLIC_HOST],
      ['Content-Type', 'application/json'],
      ['Stripe-Signature', 't=1,v1=abc'],
      ['X-Dup', 'one'],
      ['x-dup', 'two'],
      ['Content-Length', String(Buffer.byteLength(signed))]
    ])
    // One line per request, then the total.
    expect(ran.stdout.filter(line => /^#\d/.test(line))).toHaveLength(3)
    expect(ran.stdout.filter(line => /\bOK\b/.test(line) && /^#/.test(line))).toHaveLength(3)
  })

  it('leaves out redacted values and hop-by-hop headers, and gives --to a Host only when none was recorded', async () => {
    const file = harFile([
      entry({
        url: `https://${PUBLIC_HOST}/hook?token=REDACTED&keep=1&sig=REDACTED`,
        headers: [
          ['Authorization', 'REDACTED'],
          ['Cookie', 'REDACTED'],
          ['Connection', 'keep-alive, X-Hop'],
          ['X-Hop', 'per-connection'],
          ['Keep-Alive', 'timeout=5'],
          ['Proxy-Authorization', 'Basic abc'],
          ['Proxy-Connection', 'keep-alive'],
          ['TE', 'trailers'],
          ['Trailer', 'X-Checksum'],
          ['Transfer-Encoding', 'chunked'],
          ['X-Kept', 'yes']
        ]
      }),
      entry({ url: '/no-host', headers: [['Accept', '*/*']] })
    ])
    const ran = await replay([file, '--to', `${appUrl}/`])

    expect(ran.code).toBe(0)
    expect(arrived[0].target).toBe('/hook?keep=1')
    const names = arrived[0].rawHeaders
      .map(([name]) => name.toLowerCase())
      .filter(name => name !== 'connection')
    // Host first: the recorded request had none, so --to's is added.
    expect(names).toEqual(['host', 'x-kept', 'content-length'])
    expect(names).toContain('x-kept')
    expect(arrived[0].rawHeaders.some(([, value]) => value === 'REDACTED')).toBe(false)
    for (const hop of ['authorization', 'cookie', 'x-hop', 'keep-alive', 'te', 'trailer']) {
      expect(names).not.toContain(hop)
    }
    expect(names.filter(name => name.startsWith('proxy-'))).toEqual([])
    expect(names).not.toContain('transfer-encoding')
    // The recorded request had no Host: it gets --to's.
    expect(arrived[1].rawHeaders).toContainEqual(['Host', new URL(appUrl).host])
    expect(ran.stdout.join('\n')).toMatch(/Authorization/)
  })

  it("puts --to's path in front of each recorded path", async () => {
    const file = harFile([entry({ url: `https://${PUBLIC_HOST}/webhooks/x?a=1` })])
    expect((await replay([file, '--to', `${appUrl}/base/`])).code).toBe(0)
    expect(arrived.map(r => r.target)).toEqual(['/base/webhooks/x?a=1'])
  })

  it('exit 1 when a status class differs, and a line says DIFF', async () => {
    const file = harFile([
      entry({ url: '/ok', status: 201 }),
      entry({ url: '/broken', status: 200 }),
      entry({ url: '/ok-too', status: 200 })
    ])
    answers.set('/broken', 500)
    const ran = await replay([file, '--to', appUrl])
    expect(ran.code).toBe(1)
    expect(arrived).toHaveLength(3)
    expect(ran.stdout.filter(line => /DIFF/.test(line) && /^#/.test(line))).toHaveLength(1)
    expect(ran.stdout.find(line => line.includes('/broken'))).toMatch(/200 -> 500\s+DIFF/)
    expect(ran.stderr).toHaveLength(1)
  })

  it('a request that gets no answer in --timeout-seconds counts as a difference', async () => {
    const file = harFile([entry({ url: '/hang' }), entry({ url: '/after' })])
    const ran = await replay([file, '--to', appUrl, '--timeout-seconds', '0.5'])
    expect(ran.code).toBe(1)
    expect(arrived.map(r => r.target)).toEqual(['/hang', '/after'])
  })

  it('exit 1 and one error line when nothing listens at --to', async () => {
    const closed = createServer()
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise(resolve => closed.close(resolve))
    const ran = await replay([harFile([entry({ url: '/' })]), '--to', `http://127.0.0.1:${port}`])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toHaveLength(1)
    expect(ran.stderr[0]).toMatch(/--to/)
  })
})

describe('--to https', () => {
  it("names --to's host in TLS, not the recorded Host, and a certificate it cannot trust is a failure", async () => {
    const certificate = makeThrowawayCertificate()
    const names: (string | undefined)[] = []
    const tlsApp = createTlsServer({
      key: certificate.key,
      cert: certificate.cert,
      SNICallback: (name, done) => (names.push(name), done(null, undefined))
    })
    tlsApp.on('tlsClientError', () => undefined)
    await new Promise<void>(resolve => tlsApp.listen(0, '127.0.0.1', resolve))
    try {
      const port = (tlsApp.address() as AddressInfo).port
      const file = harFile([entry({ url: '/', headers: [['Host', PUBLIC_HOST]] })])
      const ran = await replay([file, '--to', `https://localhost:${port}`])
      expect(names).toEqual(['localhost'])
      expect(ran.code).toBe(1)
    } finally {
      await new Promise(resolve => tlsApp.close(resolve))
      certificate.remove()
    }
  })
})

describe('bodies that are not whole, and requests that never reached the app', () => {
  it.each([
    ['marked _truncated', { text: 'abc', mimeType: 'text/plain', _truncated: true }, 3],
    ['shorter than bodySize', { text: 'abc', mimeType: 'text/plain' }, 10],
    ['not recorded at all', undefined, 10]
  ])(
    'a body %s is not sent as if whole: not replayed, exit 1',
    async (_name, postData, bodySize) => {
      const file = harFile([
        entry({ method: 'POST', url: '/webhooks/cut', bodySize, ...(postData && { postData }) }),
        entry({ url: '/after' })
      ])
      const ran = await replay([file, '--to', appUrl])
      expect(arrived.map(r => r.target)).toEqual(['/after'])
      expect(ran.code).toBe(1)
      expect(ran.stdout.find(line => line.includes('/webhooks/cut'))).toMatch(/NOT REPLAYED/)
    }
  )

  it("the tunnel's own answers (gate, unreachable app, not HTTP, proof) are skipped with a note, exit 0", async () => {
    const file = harFile([
      entry({ url: '/gated', status: 401, tunnel: { outcome: 'refused', entry: 'web' } }),
      // The gate letting a browser in (cookie, reopen without the secret): the app never saw it.
      entry({ url: '/page', status: 200, tunnel: { outcome: 'admitted', entry: 'web' } }),
      entry({ url: '/down', status: 502, tunnel: 'unreachable' }),
      entry({ method: '', url: '', status: 0, tunnel: { outcome: 'not-http' } }),
      entry({ url: '/.well-known/proof', status: 200, tunnel: { outcome: 'proof' } }),
      entry({ url: '/forwarded', status: 200, tunnel: { outcome: 'forwarded' } })
    ])
    const ran = await replay([file, '--to', appUrl])
    expect(arrived.map(r => r.target)).toEqual(['/forwarded'])
    expect(ran.code).toBe(0)
    expect(ran.stdout.filter(line => /^#\d+ .*skipped/.test(line))).toHaveLength(5)
  })

  it('a method Node would change (none at all, or lower case) is not replayed as another', async () => {
    const file = harFile([
      entry({ method: '', url: '/no-method' }),
      entry({ method: 'put', url: '/lower' }),
      entry({ url: '/after' })
    ])
    const ran = await replay([file, '--to', appUrl])
    expect(arrived.map(r => `${r.method} ${r.target}`)).toEqual(['GET /after'])
    expect(ran.code).toBe(1)
  })

  it('a WebSocket handshake is not replayed as a plain GET', async () => {
    const file = harFile([
      entry({ url: '/socket', status: 101, headers: [['Upgrade', 'websocket']] })
    ])
    const ran = await replay([file, '--to', appUrl])
    expect(arrived).toEqual([])
    expect(ran.code).toBe(1)
  })
})

describe('filters', () => {
  const five = () =>
    harFile([
      entry({
        method: 'POST',
        url: '/webhooks/a',
        bodySize: 1,
        postData: { text: 'a', mimeType: 'x' }
      }),
      entry({ url: '/webhooks/b' }),
      entry({
        method: 'POST',
        url: '/api/webhooks/c',
        bodySize: 1,
        postData: { text: 'c', mimeType: 'x' }
      }),
      entry({
        method: 'PUT',
        url: '/webhooks-old/d',
        bodySize: 1,
        postData: { text: 'd', mimeType: 'x' }
      }),
      entry({ url: '/webhooks/e?x=1' })
    ])

  it.each([
    [
      ['--index', '1,3-4'],
      ['/webhooks/a', '/api/webhooks/c', '/webhooks-old/d']
    ],
    [
      ['--method', 'post'],
      ['/webhooks/a', '/api/webhooks/c']
    ],
    [
      ['--method', 'POST,PUT'],
      ['/webhooks/a', '/api/webhooks/c', '/webhooks-old/d']
    ],
    [
      ['--path', '/webhooks/'],
      ['/webhooks/a', '/webhooks/b', '/webhooks/e?x=1']
    ],
    [
      ['--path', '/webhooks/', '--method', 'GET', '--index=2-5'],
      ['/webhooks/b', '/webhooks/e?x=1']
    ]
  ])('%j replays exactly the matching entries, in order', async (filters, targets) => {
    const ran = await replay([five(), '--to', appUrl, ...filters])
    expect(ran.code).toBe(0)
    expect(arrived.map(r => r.target)).toEqual(targets)
  })

  it('filters that match nothing send nothing and exit 1', async () => {
    const ran = await replay([five(), '--to', appUrl, '--method', 'DELETE'])
    expect(ran.code).toBe(1)
    expect(arrived).toEqual([])
    expect(ran.stderr).toHaveLength(1)
  })
})

describe('usage errors: exit 2, one line, nothing sent', () => {
  const good = () => harFile([entry({ url: '/' })])
  it.each([
    ['no --to', () => [good()]],
    ['no file', () => ['--to', appUrl]],
    ['two files', () => [good(), good(), '--to', appUrl]],
    ['--to not a URL', () => [good(), '--to', '127.0.0.1:3000']],
    ['--to not http', () => [good(), '--to', 'ftp://127.0.0.1/']],
    ['--to with a password', () => [good(), '--to', 'http://user:hunter2@127.0.0.1/']],
    ['--to with a query', () => [good(), '--to', `${appUrl}/?a=1`]],
    ['--index not a list', () => [good(), '--to', appUrl, '--index', '1,x']],
    ['--index from 0', () => [good(), '--to', appUrl, '--index', '0-1']],
    ['--index past the end', () => [good(), '--to', appUrl, '--index', '2']],
    ['--index backwards', () => [good(), '--to', appUrl, '--index', '3-1']],
    ['--method not a method', () => [good(), '--to', appUrl, '--method', 'PO ST']],
    ['--path not a path', () => [good(), '--to', appUrl, '--path', 'webhooks']],
    ['--timeout-seconds 0', () => [good(), '--to', appUrl, '--timeout-seconds', '0']],
    ['an unknown option', () => [good(), '--to', appUrl, '--project', 'x']],
    ['a missing file', () => [join(work, 'none.har'), '--to', appUrl]],
    ['a folder', () => [work, '--to', appUrl]],
    ['not JSON', () => [writeTo('bad.har', '{"log":'), '--to', appUrl]],
    ['no entries', () => [writeTo('bad.har', '{"log":{}}'), '--to', appUrl]],
    [
      'an entry without a url',
      () => [
        writeTo('bad.har', '{"log":{"entries":[{"request":{"method":"GET"}}]}}'),
        '--to',
        appUrl
      ]
    ],
    [
      'headers not a list',
      () => [
        writeTo(
          'bad.har',
          '{"log":{"entries":[{"request":{"method":"GET","url":"/","headers":{}}}]}}'
        ),
        '--to',
        appUrl
      ]
    ],
    [
      'a body in an unknown encoding',
      () => [
        writeTo(
          'bad.har',
          '{"log":{"entries":[{"request":{"method":"POST","url":"/","postData":{"text":"x","encoding":"gzip"}}}]}}'
        ),
        '--to',
        appUrl
      ]
    ]
  ])('%s', async (_name, args) => {
    const ran = await replay(args())
    expect(ran.code).toBe(2)
    expect(ran.stdout).toEqual([])
    expect(ran.stderr).toHaveLength(1)
    expect(arrived).toEqual([])
  })

  it('a bad entry anywhere stops the replay before the first request', async () => {
    const file = harFile([entry({ url: '/first' }), { request: { method: 'GET' } }])
    expect((await replay([file, '--to', appUrl])).code).toBe(2)
    expect(arrived).toEqual([])
  })

  it('a password in --to is not repeated', async () => {
    const ran = await replay([good(), '--to', 'http://user:hunter2@127.0.0.1/'])
    expect(ran.stderr.join('\n')).not.toContain('hunter2')
  })

  it('replay comes first on the command line', async () => {
    const stderr: string[] = []
    const code = await main(
      ['--timeout-seconds', '5', 'replay', good()],
      {},
      {
        stdout: () => undefined,
        stderr: line => stderr.push(line)
      }
    )
    expect(code).toBe(2)
    expect(stderr).toHaveLength(1)
  })
})

function writeTo(name: string, text: string): string {
  const path = join(work, name)
  writeFileSync(path, text)
  return path
}

describe('what replay prints and reads', () => {
  it('prints nothing of a hostile HAR that a CI log reader obeys, and still sends what Node can', async () => {
    const hostile = [
      '/x::add-mask::y',
      '/%0A::add-mask::x',
      '/\u0007bell\u001b[31m\r\n::set-output name=a::b',
      '/\u2028::warning::line',
      '/\u0085##vso[task.setvariable variable=X]1'
    ]
    const file = harFile([
      ...hostile.map(path => entry({ url: path })),
      entry({ method: '##vso[task.setvariable variable=Y]1', url: '/' }),
      entry({ method: '##[error]', url: '/' }),
      entry({ url: '/x', headers: [['##vso[task.complete result=Failed]', 'REDACTED']] }),
      entry({ url: '/x?\u001b]0;title\u0007::error::x=REDACTED' }),
      entry({ url: `https://${PUBLIC_HOST}/frag###vso[task.complete result=Failed]` })
    ])
    const ran = await replay([file, '--to', appUrl])
    expect(commandsObeyedIn([...ran.stdout, ...ran.stderr])).toEqual([])
    // Printable ASCII targets reach the app as recorded; a fragment is never sent.
    expect(arrived.map(r => r.target)).toEqual([
      '/x::add-mask::y',
      '/%0A::add-mask::x',
      '/x',
      '/x',
      '/frag'
    ])
    // Control characters cannot be in an HTTP/1.1 target, nor such methods: not replayed, and said so.
    expect(ran.stdout.filter(line => /NOT REPLAYED/.test(line))).toHaveLength(5)
    expect(ran.code).toBe(1)
  })

  it('a hostile HAR file name prints nothing a reader obeys either', async () => {
    const file = harFile([], '##vso[task.setvariable variable=X]1.har')
    const ran = await replay([file, '--to', appUrl])
    expect(ran.code).toBe(0)
    expect(commandsObeyedIn([...ran.stdout, ...ran.stderr])).toEqual([])
  })

  it('reads no variable: no masking line, no API key sent, no service called', async () => {
    const key = 'sk_live_0123456789abcdef0123456789abcdef'
    const file = harFile([entry({ url: '/' })])
    const ran = await replay([file, '--to', appUrl], {
      SVC_API_KEY: key,
      SVC_BASE_URL: 'http://127.0.0.1:1/never',
      SVC_TIMEOUT_SECONDS: 'not a number',
      GITHUB_ACTIONS: 'true',
      TF_BUILD: 'True'
    })
    expect(ran.code).toBe(0)
    expect(ran.stdout.join('\n')).not.toMatch(/mask/i)
    expect(JSON.stringify(arrived)).not.toContain(key)
    expect([...ran.stdout, ...ran.stderr].join('\n')).not.toContain(key)
  })

  it('replays a HAR exported by Chrome DevTools (HTTP/2 pseudo-headers, absolute URLs)', async () => {
    answers.set('/api/cart/items', 201)
    const ran = await replay([
      fileURLToPath(new URL('../fixtures/har/chrome-devtools.har', import.meta.url)),
      '--to',
      appUrl
    ])
    expect(ran.stderr).toEqual([])
    expect(ran.code).toBe(0)
    expect(arrived.map(r => `${r.method} ${r.target}`)).toEqual([
      'GET /cart?step=2',
      'POST /api/cart/items'
    ])
    expect(arrived[1].body.toString()).toBe('{"sku":"tea-01","quantity":2}\n')
    for (const request of arrived) {
      expect(request.rawHeaders.some(([name]) => name.startsWith(':'))).toBe(false)
    }
    // HTTP/2 has no Host header: the app gets --to's.
    expect(arrived[0].rawHeaders).toContainEqual(['Host', new URL(appUrl).host])
  })
})
