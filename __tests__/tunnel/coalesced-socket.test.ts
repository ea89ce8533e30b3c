import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { connectCoalesced } from '../../src/tunnel/coalesced-socket.js'

let server: Server
const reads: Buffer[] = []
let accepted: Promise<Socket>

beforeEach(async () => {
  reads.length = 0
  let accept: (socket: Socket) => void = () => undefined
  accepted = new Promise(resolve => (accept = resolve))
  server = createServer(socket => {
    socket.on('data', (chunk: Buffer) => reads.push(chunk))
    accept(socket)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
})
afterEach(() => new Promise<void>(resolve => server.close(() => resolve())))

const port = () => (server.address() as AddressInfo).port

async function readsSettled(bytes: number): Promise<void> {
  const deadline = Date.now() + 5_000
  while (Buffer.concat(reads).length < bytes && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

describe('connectCoalesced', () => {
  it('sends the pieces written in one turn together, in order', async () => {
    const socket = connectCoalesced(port(), '127.0.0.1')
    await new Promise(resolve => socket.once('connect', resolve))
    await accepted
    // As ssh2 writes one packet: its length, its body, its authentication tag.
    socket.write(Buffer.from([0, 0, 0, 9]))
    socket.write(Buffer.from('encrypted'))
    socket.write(Buffer.from('tag'))
    await readsSettled(16)
    expect(reads).toEqual([Buffer.from('\u0000\u0000\u0000\u0009encryptedtag', 'latin1')])
    socket.destroy()
  })

  it('delivers what was written before the connection was up, and later writes too', async () => {
    const socket = connectCoalesced(port(), '127.0.0.1')
    socket.write('early ')
    await new Promise(resolve => socket.once('connect', resolve))
    await new Promise(resolve => setTimeout(resolve, 20))
    socket.write('late')
    await readsSettled(10)
    expect(Buffer.concat(reads).toString()).toBe('early late')
    socket.destroy()
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
