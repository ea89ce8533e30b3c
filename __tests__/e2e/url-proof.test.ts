/**
 * The URL proof and the local app check through the bundled action under the runner emulation:
 * a url-template that forms URLs some other server answers (200, but not this tunnel) fails main
 * with one error naming url-template and what answered, sets nothing, revokes the token and leaves
 * no tunnel process or folder; `prove-url: false` accepts the same template. An entry whose app
 * is not listening draws a warning, and the step still succeeds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { startLocalApp } from '../../scripts/openssh.js'
import type { StepResult } from '../../scripts/runner.js'
import { annotations, expectNoLeak, inputsFor, statusOf, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let web: Awaited<ReturnType<typeof startLocalApp>>
let other: Server
let otherPort: number
/** A server at a wrong URL that passes each request on to the real URL, and back: a relay. */
let relay: Server
let relayPort: number
const relayed: string[] = []
const temps: string[] = []

beforeAll(async () => {
  web = await startLocalApp('answer from web')
  // What a wrong url-template reaches: a server that answers 200 to anything, but is not us.
  other = createServer((_request, response) =>
    response.writeHead(200, { Server: 'someone-else/2.0' }).end('<h1>Welcome to nginx!</h1>')
  )
  await new Promise<void>(resolve => other.listen(0, '127.0.0.1', resolve))
  otherPort = (other.address() as AddressInfo).port
  relay = createServer((incoming, outgoing) => {
    // The real URL: the same name at the stand-in's front, asked as any HTTP client asks it.
    const realHost = incoming.headers.host!.replace(/:\d+$/, `:${service().tunnel!.frontPort}`)
    relayed.push(incoming.url!)
    const onward = httpRequest(
      {
        host: '127.0.0.1',
        port: service().tunnel!.frontPort,
        path: incoming.url,
        headers: { ...incoming.headers, host: realHost }
      },
      answer => {
        outgoing.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(outgoing)
      }
    )
    onward.on('error', () => outgoing.writeHead(502).end())
    incoming.pipe(onward)
  })
  await new Promise<void>(resolve => relay.listen(0, '127.0.0.1', resolve))
  relayPort = (relay.address() as AddressInfo).port
})
afterAll(async () => {
  await web?.close()
  await new Promise(resolve => other?.close(resolve))
  await new Promise(resolve => relay?.close(resolve))
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

function newJob(): { job: Job; runnerTemp: string } {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'url-proof-e2e-'))
  temps.push(runnerTemp)
  return { job: new Job({ env: { RUNNER_TEMP: runnerTemp }, timeoutMs: 60_000 }), runnerTemp }
}

const inputs = (extra: Record<string, string>) =>
  inputsFor(service(), {
    'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
    'timeout-seconds': '5',
    expose: `web=${web.port}`,
    ...extra
  })

/** Running, as /proc says (a zombie waiting for pid 1 to reap it is not). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return false
  }
}

/** The tunnel process main started, from the line that names it. */
const tunnelPidOf = (main: StepResult) => Number(/\(process (\d+),/.exec(main.stdout)![1])

const wrongTemplate = () => `http://{name}-{user}.localhost:${otherPort}`

it('a url-template that reaches another server fails main: one error, nothing set, token revoked, no process or folder', async () => {
  const { job, runnerTemp } = newJob()
  const { main } = await job.uses(inputs({ 'url-template': wrongTemplate() }))
  expect(main.exitCode).toBe(1)
  const errors = annotations(main, 'error')
  expect(errors).toHaveLength(1)
  // Names the input to fix and what answered instead of the tunnel.
  expect(errors[0]).toContain('url-template')
  expect(errors[0]).toContain('someone-else/2.0')
  expect(errors[0]).toContain('Welcome to nginx!')
  expect(main.outputs).toEqual({})
  expect(main.env).toEqual({})
  expect(main.summary).toBe('')
  // Nothing saved for post either: neither the tunnel nor its request log.
  expect(main.state.tunnel ?? '').toBe('')
  expect(main.state['request-log'] ?? '').toBe('')
  // Revoked by main itself: nobody may use a credential whose URL does not work.
  const user = service().tokens().at(-1)!.tunnel_user
  expect(statusOf(service(), user)).toBe('revoked')
  expect(isAlive(tunnelPidOf(main))).toBe(false)
  expect(readdirSync(runnerTemp).filter(name => name.startsWith('tunnel-'))).toEqual([])
  expectNoLeak(main, { secrets: [service().seed.provisionKey] })
  const [post] = await job.end()
  expect(post.exitCode).toBe(0)
}, 90_000)

it('a url-template that reaches a relay to the real URL fails main: the keeper does not answer for another host', async () => {
  const { job } = newJob()
  relayed.length = 0
  const { main } = await job.uses(
    inputs({ 'url-template': `http://{name}-{user}.localhost:${relayPort}` })
  )
  // The relay did pass main's request on, and what came back was the app's page.
  expect(relayed).toEqual([
    expect.stringMatching(/^\/\.well-known\/tunnel-credentials-proof\/[0-9a-f]{32}$/)
  ])
  expect(main.exitCode).toBe(1)
  const errors = annotations(main, 'error')
  expect(errors).toHaveLength(1)
  expect(errors[0]).toContain('url-template')
  expect(errors[0]).toContain('answer from web')
  expect(main.outputs).toEqual({})
  const [post] = await job.end()
  expect(post.exitCode).toBe(0)
}, 90_000)

it('prove-url: false accepts the same url-template', async () => {
  const { job } = newJob()
  const { main } = await job.uses(inputs({ 'url-template': wrongTemplate(), 'prove-url': 'false' }))
  expect(main.exitCode).toBe(0)
  expect(annotations(main, 'error')).toEqual([])
  expect(main.outputs.url).toMatch(new RegExp(`^http://web-[^.]+\\.localhost:${otherPort}$`))
  const pid = tunnelPidOf(main)
  expect(isAlive(pid)).toBe(true)
  const [post] = await job.end()
  expect(post.exitCode).toBe(0)
  expect(isAlive(pid)).toBe(false)
}, 60_000)

it('an entry whose app does not listen draws a warning naming it; the step succeeds', async () => {
  // A port that was free a moment ago: nothing listens there.
  const closed = await new Promise<number>(resolve => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
  const { job } = newJob()
  const { main } = await job.uses(inputs({ expose: `web=${web.port}\nlater=${closed}` }))
  expect(main.exitCode).toBe(0)
  const warnings = annotations(main, 'warning')
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toContain('"later"')
  expect(warnings[0]).toContain(`:${closed}`)
  expect(Object.keys(JSON.parse(main.outputs.urls) as object)).toEqual(['web', 'later'])
  await job.end()
}, 60_000)
