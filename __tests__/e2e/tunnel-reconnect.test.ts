/**
 * The action's tunnel heals a dropped connection: the bundled main step (Node 24) exposes a
 * local app; while requests run through the front, the stand-in drops every SSH connection
 * (POST /__admin/tunnel/drop, nothing revoked). The tunnel process reconnects by itself, the
 * requests succeed again within 5 s, and the post step's tunnel line counts one reconnect.
 */
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { inputsFor, runAction, statusOf, useService } from './helpers.js'
import { lookUpProcess } from '../../src/core/tunnel/saved/process-identity.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let app: Awaited<ReturnType<typeof startLocalApp>>

beforeAll(async () => {
  app = await startLocalApp('answer from your local app')
})
afterAll(() => app?.close())

interface Attempt {
  /** When the answer (or the failure) came, ms since the epoch. */
  at: number
  /** The HTTP status, or the request's error. */
  outcome: number | string
}

/** Sends GETs through the front one after another until stopped, recording each outcome. */
function keepRequesting(host: string): { attempts: Attempt[]; stop(): Promise<void> } {
  const attempts: Attempt[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const outcome = await getThroughFront(service().tunnel!.frontPort, host).then(
        answer => answer.status,
        (error: Error) => error.message
      )
      attempts.push({ at: Date.now(), outcome })
      await new Promise(resolve => setTimeout(resolve, 25))
    }
  })()
  return {
    attempts,
    stop: async () => {
      running = false
      await loop
    }
  }
}

/** Running, and not a zombie left for a parent (here, whatever adopted it) to reap. */
function isAlive(pid: number): boolean {
  return lookUpProcess(pid).state !== 'gone'
}

const until = async (condition: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (!condition() && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  return condition()
}

it('reconnects after every SSH connection is dropped; requests succeed again within 5 s; post counts one reconnect', async () => {
  const tunnel = service().tunnel!
  const { main, post } = await runAction(
    inputsFor(service(), { expose: `app=${app.port}`, 'url-template': tunnel.urlTemplate })
  )
  expect(main.exitCode).toBe(0)
  const user = main.outputs['tunnel-user']
  const url = `http://app-${user}.localhost:${tunnel.frontPort}`
  expect(main.outputs.url.replace(/\/$/, '')).toBe(url)
  const pid = (JSON.parse(main.state.tunnel) as { pid: number }).pid

  const requests = keepRequesting(new URL(url).hostname)
  let droppedAt = 0
  try {
    expect(await until(() => requests.attempts.some(a => a.outcome === 200), 5000)).toBe(true)

    const response = await fetch(`${service().adminUrl}/tunnel/drop`, { method: 'POST' })
    droppedAt = Date.now()
    expect(await response.json()).toMatchObject({ success: true, dropped: 1 })

    // Loose bound: the "within 5 s" of the drop.
    const healed = () => requests.attempts.some(a => a.at > droppedAt && a.outcome === 200)
    expect(await until(healed, 5000)).toBe(true)
    // A few more in a row, so the first success was not a request still finishing on the old one.
    const healedAt = requests.attempts.find(a => a.at > droppedAt && a.outcome === 200)!.at
    expect(
      await until(() => requests.attempts.filter(a => a.at > healedAt).length >= 3, 2000)
    ).toBe(true)
  } finally {
    await requests.stop()
  }
  const afterHealing = requests.attempts.filter(a => a.at > droppedAt).slice(-3)
  expect(afterHealing.map(a => a.outcome)).toEqual([200, 200, 200])

  // The stand-in saw the drop, then the same credential log in again and ask for the forward.
  const events = tunnel
    .events()
    .filter(event => event.user === user)
    .map(event => `${event.event}: ${event.detail}`)
  expect(events).toEqual([
    'connected: cicd',
    `forward: app-${user}.localhost`,
    'closed: dropped (admin tunnel/drop)',
    'connected: cicd',
    `forward: app-${user}.localhost`
  ])
  expect(isAlive(pid)).toBe(true)

  const ended = await post()
  expect(ended.exitCode).toBe(0)
  expect(ended.stdout).toMatch(/Tunnel: up .*, 1 reconnect, /)
  expect(statusOf(service(), user)).toBe('revoked')
  expect(isAlive(pid)).toBe(false)
}, 60_000)
