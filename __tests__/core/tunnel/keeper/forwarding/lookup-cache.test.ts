import type { LookupAddress, LookupAllOptions } from 'node:dns'
import { connect, createServer, type AddressInfo } from 'node:net'
import {
  cachedLookup,
  LOOKUP_TTL_MS
} from '../../../../../src/core/tunnel/keeper/forwarding/lookup-cache.js'

type Done = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void

/** A system lookup that answers only when told, and records what it was asked. */
function fakeSystem() {
  const asked: Array<{ hostname: string; options: LookupAllOptions; done: Done }> = []
  return {
    asked,
    lookup: (hostname: string, options: LookupAllOptions, done: Done) =>
      void asked.push({ hostname, options, done })
  }
}

const LOCAL: LookupAddress[] = [
  { address: '::1', family: 6 },
  { address: '127.0.0.1', family: 4 }
]

/** Calls the lookup as net.connect does, and resolves with what it was answered. */
function ask(lookup: ReturnType<typeof cachedLookup>, hostname: string, all = true) {
  return new Promise<unknown[]>(resolve =>
    lookup(hostname, { all }, (...answer: unknown[]) => resolve(answer))
  )
}

describe('cachedLookup', () => {
  it('answers from the first lookup for a second, then asks the system again', async () => {
    const system = fakeSystem()
    let now = 1_000
    const lookup = cachedLookup(system.lookup, () => now)
    const first = ask(lookup, 'localhost')
    system.asked[0].done(null, LOCAL)
    expect(await first).toEqual([null, LOCAL])
    now += LOOKUP_TTL_MS - 1
    expect(await ask(lookup, 'localhost')).toEqual([null, LOCAL])
    expect(system.asked).toHaveLength(1)
    now += 1
    const later = ask(lookup, 'localhost')
    expect(system.asked).toHaveLength(2)
    system.asked[1].done(null, [LOCAL[1]])
    expect(await later).toEqual([null, [LOCAL[1]]])
  })

  it('asks once for connections that wait for the same name at the same time', async () => {
    const system = fakeSystem()
    const lookup = cachedLookup(system.lookup, () => 0)
    const answers = Promise.all([ask(lookup, 'db'), ask(lookup, 'db'), ask(lookup, 'cache')])
    expect(system.asked.map(({ hostname }) => hostname)).toEqual(['db', 'cache'])
    system.asked[0].done(null, [LOCAL[1]])
    system.asked[1].done(null, [LOCAL[0]])
    expect(await answers).toEqual([
      [null, [LOCAL[1]]],
      [null, [LOCAL[1]]],
      [null, [LOCAL[0]]]
    ])
  })

  it('passes a failure on and does not keep it: the next connection asks again', async () => {
    const system = fakeSystem()
    const lookup = cachedLookup(system.lookup, () => 0)
    const failed = ask(lookup, 'app')
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND app'), { code: 'ENOTFOUND' })
    system.asked[0].done(notFound, [])
    expect((await failed)[0]).toBe(notFound)
    const retried = ask(lookup, 'app')
    expect(system.asked).toHaveLength(2)
    system.asked[1].done(null, [LOCAL[1]])
    expect(await retried).toEqual([null, [LOCAL[1]]])
  })

  it('gives the first address and its family to a caller that asks for one', async () => {
    const system = fakeSystem()
    const lookup = cachedLookup(system.lookup, () => 0)
    const one = ask(lookup, 'localhost', false)
    expect(system.asked[0].options).toMatchObject({ all: true })
    system.asked[0].done(null, LOCAL)
    expect(await one).toEqual([null, '::1', 6])
  })

  it('keeps answers for different address families apart', async () => {
    const system = fakeSystem()
    const lookup = cachedLookup(system.lookup, () => 0)
    const v4 = new Promise(resolve => lookup('localhost', { all: true, family: 4 }, resolve))
    const v6 = new Promise(resolve => lookup('localhost', { all: true, family: 6 }, resolve))
    expect(system.asked.map(({ options }) => options.family)).toEqual([4, 6])
    system.asked[0].done(null, [LOCAL[1]])
    system.asked[1].done(null, [LOCAL[0]])
    await Promise.all([v4, v6])
  })

  it('lets net.connect reach a local server by name', async () => {
    const server = createServer(socket => socket.end('hello'))
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const lookup = cachedLookup()
    try {
      for (let i = 0; i < 2; i++) {
        const text = await new Promise<string>((resolve, reject) => {
          let received = ''
          const socket = connect({
            host: 'localhost',
            port: (server.address() as AddressInfo).port,
            lookup,
            // Only 127.0.0.1 listens here; ::1 may come first for localhost.
            autoSelectFamily: true
          })
          socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk))
          socket.on('end', () => resolve(received))
          socket.on('error', reject)
        })
        expect(text).toBe('hello')
      }
    } finally {
      server.close()
    }
  })
})
