import { jest } from '@jest/globals'
import { createServer, Socket, type AddressInfo, type Server } from 'node:net'
import { connectCoalesced } from '../../../../../src/core/tunnel/keeper/ssh/coalesced-socket.js'

let server: Server
const reads: Buffer[] = []
let accepted: Promise<Socket>
/** Both ends of every connection, closed after each test even when it failed halfway. */
const sockets: Socket[] = []

beforeEach(async () => {
  reads.length = 0
  let accept: (socket: Socket) => void = () => undefined
  accepted = new Promise(resolve => (accept = resolve))
  server = createServer(socket => {
    sockets.push(socket)
    socket.on('data', (chunk: Buffer) => reads.push(chunk))
    accept(socket)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
})
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await new Promise<void>(resolve => server.close(() => resolve()))
})

const port = () => (server.address() as AddressInfo).port

function connect(): Socket {
  const socket = connectCoalesced(port(), '127.0.0.1')
  sockets.push(socket)
  return socket
}

async function readsSettled(bytes: number): Promise<void> {
  const deadline = Date.now() + 5_000
  while (Buffer.concat(reads).length < bytes && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

type HandleWrite = (...args: unknown[]) => unknown

/**
 * Records what the socket hands to its libuv handle: each call is one write request (one writev
 * or write system call when the kernel takes it all), with the pieces it carries. The server's
 * reads cannot show this: loopback may merge separate writes into one read.
 */
function recordHandleWrites(socket: Socket): Buffer[][] {
  const handle = (socket as unknown as { _handle: Record<string, HandleWrite> })._handle
  const writes: Buffer[][] = []
  for (const name of ['writev', 'writeBuffer', 'writeLatin1String', 'writeUtf8String']) {
    const original = handle[name]
    handle[name] = function (this: unknown, ...args: unknown[]) {
      // writev(req, chunks, allBuffers): Buffers, or else piece and encoding in turn.
      const [, data, allBuffers] = args
      const pieces =
        name !== 'writev'
          ? [data]
          : allBuffers
            ? (data as unknown[])
            : (data as unknown[]).filter((_, i) => i % 2 === 0)
      writes.push(
        pieces.map(piece => (Buffer.isBuffer(piece) ? piece : Buffer.from(String(piece))))
      )
      return original.apply(this, args)
    }
  }
  return writes
}

describe('connectCoalesced', () => {
  it('hands the pieces written in one turn to the system as one write, in order', async () => {
    const socket = connect()
    await new Promise(resolve => socket.once('connect', resolve))
    await accepted
    const writes = recordHandleWrites(socket)
    // As ssh2 writes one packet: its length, its body, its authentication tag.
    socket.write(Buffer.from([0, 0, 0, 9]))
    socket.write(Buffer.from('encrypted'))
    socket.write(Buffer.from('tag'))
    await readsSettled(16)
    expect(writes).toEqual([
      [Buffer.from([0, 0, 0, 9]), Buffer.from('encrypted'), Buffer.from('tag')]
    ])
    expect(Buffer.concat(reads)).toEqual(
      Buffer.from('\u0000\u0000\u0000\u0009encryptedtag', 'latin1')
    )
  })

  it('sends what is written in a later turn in a write of its own, without waiting', async () => {
    const socket = connect()
    await new Promise(resolve => socket.once('connect', resolve))
    await accepted
    const writes = recordHandleWrites(socket)
    socket.write(Buffer.from('first '))
    socket.write(Buffer.from('packet'))
    await new Promise(resolve => setImmediate(resolve))
    expect(writes).toHaveLength(1)
    socket.write(Buffer.from(' second'))
    await readsSettled(19)
    expect(writes.map(pieces => Buffer.concat(pieces).toString())).toEqual([
      'first packet',
      ' second'
    ])
  })

  it('turns Nagle off, so a small packet never waits for the last one to be acknowledged', async () => {
    const setNoDelay = jest.spyOn(Socket.prototype, 'setNoDelay')
    try {
      const socket = connect()
      await new Promise(resolve => socket.once('connect', resolve))
      expect(setNoDelay.mock.contexts).toContain(socket)
      expect(setNoDelay.mock.calls[setNoDelay.mock.contexts.indexOf(socket)]).toEqual([true])
    } finally {
      setNoDelay.mockRestore()
    }
  })

  it('delivers what was written before the connection was up, and later writes too', async () => {
    const socket = connect()
    socket.write('early ')
    await new Promise(resolve => socket.once('connect', resolve))
    await new Promise(resolve => setTimeout(resolve, 20))
    socket.write('late')
    await readsSettled(10)
    expect(Buffer.concat(reads).toString()).toBe('early late')
  })

  it('reports a refused connection as an error', async () => {
    const closed = createServer()
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
    const unused = (closed.address() as AddressInfo).port
    await new Promise<void>(resolve => closed.close(() => resolve()))
    const socket = connectCoalesced(unused, '127.0.0.1')
    const error = await new Promise<NodeJS.ErrnoException>(resolve => socket.once('error', resolve))
    expect(error.code).toBe('ECONNREFUSED')
  })
})
