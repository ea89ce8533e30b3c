/** The server's console: what a line must say to name the forward limit, and what is kept. */
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import type Client from 'ssh2/lib/client.js'
import {
  forwardLimitIn,
  namesForwardLimit,
  ServerConsole,
  takenNameIn
} from '../../../../../src/core/tunnel/keeper/ssh/server-console.js'

/** A client whose shell() hands back a stream the test writes to as the server. */
function fakeClient(opening: 'opens' | 'refuses' | 'never') {
  const stream = Object.assign(new PassThrough(), {
    stderr: new PassThrough(),
    sessionClosed: false,
    close() {
      stream.sessionClosed = true
    }
  })
  const client = Object.assign(new EventEmitter(), {
    shell: (_window: false, callback: (error: Error | undefined, channel: unknown) => void) => {
      if (opening === 'opens') setImmediate(() => callback(undefined, stream))
      if (opening === 'refuses') setImmediate(() => callback(new Error('refused'), undefined))
    }
  })
  return { client: client as unknown as Client, stream }
}

describe('forwardLimitIn', () => {
  it.each([
    ['Forward "d" refused: at most 3 forwards per tunnel user, across all its sessions', 3],
    ['AT MOST 12 FORWARDS PER TUNNEL USER', 12],
    ['Forward "web" refused: web-abcde is already forwarded', undefined],
    ['at most 5 forwards', undefined],
    ['at most 123456 forwards per tunnel user', undefined],
    [undefined, undefined]
  ])('reads %j as %j', (line, limit) => {
    expect(forwardLimitIn(line)).toBe(limit)
  })
})

describe('takenNameIn', () => {
  it.each([
    ['Forward "web-0" refused: the name is in use by another tunnel', ['web-0'], 'web-0'],
    ['Forward "WEB-0" refused: the name is in use', ['api', 'web-0'], 'web-0'],
    // Only a name we asked for and were refused: the server's quote picks, never supplies one.
    ['Forward "web-9" refused: the name is in use by another tunnel', ['web-0'], undefined],
    ['Forward "web-0" refused: web-0-abcde is already forwarded', ['web-0'], undefined],
    ['say Forward "web-0" refused: the name is in use', ['web-0'], undefined],
    [undefined, ['web-0'], undefined]
  ])('reads %j among %j as %j', (line, names, name) => {
    expect(takenNameIn(line, names)).toBe(name)
  })
})

describe('ServerConsole', () => {
  it('closes the session once it has its answer, or at once should it open later', async () => {
    const { client, stream } = fakeClient('opens')
    const serverConsole = new ServerConsole(client)
    setTimeout(() => stream.write('at most 2 forwards per tunnel user\r\n'), 20)
    expect(await serverConsole.find(namesForwardLimit)).toBe('at most 2 forwards per tunnel user')
    expect(stream.sessionClosed).toBe(true)
  })

  it('finds the line that names the limit, across chunks, on stdout or stderr', async () => {
    const { client, stream } = fakeClient('opens')
    const serverConsole = new ServerConsole(client)
    stream.write('Press Ctrl-C to close the session.\r\nForward "d" refused: at most ')
    setTimeout(() => stream.stderr.write('7 forwards per tunnel user\r\n'), 20)
    const line = await serverConsole.find(namesForwardLimit)
    expect(line).toBe('Forward "d" refused: at most 7 forwards per tunnel user')
  })

  it('keeps lines on one line, without control characters, and cut short', async () => {
    const { client, stream } = fakeClient('opens')
    const serverConsole = new ServerConsole(client)
    stream.write(`\u001b[31mat most 4 forwards per tunnel user\u0007 ${'x'.repeat(1000)}\r\n`)
    const line = (await serverConsole.find(namesForwardLimit)) ?? ''
    expect(forwardLimitIn(line)).toBe(4)
    expect([...line].every(c => c >= ' ' && c !== '\u007f')).toBe(true)
    expect(line.length).toBeLessThanOrEqual(300)
  })

  it('gives up soon when the server says nothing, refuses the session or never answers', async () => {
    for (const opening of ['opens', 'refuses', 'never'] as const) {
      const started = Date.now()
      expect(await new ServerConsole(fakeClient(opening).client).find(namesForwardLimit)).toBe(
        undefined
      )
      // Opened (or refused): a moment for the words to follow; never: the longest wait, 1.5 s.
      expect(Date.now() - started).toBeLessThan(opening === 'never' ? 2500 : 1000)
    }
  })
})
