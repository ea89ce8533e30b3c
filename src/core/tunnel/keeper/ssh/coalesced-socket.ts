/**
 * The keeper's TCP connection to the tunnel server, with the writes of one turn of the event
 * loop sent together. Without its native crypto addon, ssh2 writes every encrypted packet in
 * three pieces (length, body, authentication tag), and with Nagle off each piece would leave as
 * a TCP segment of its own and cost a system call, and the server a read, of its own. Corked
 * until the current callback is done, the pieces of every packet written in it go out in one
 * writev.
 */
import { Socket } from 'node:net'

export function connectCoalesced(port: number, host: string): Socket {
  const socket = new Socket()
  // No Nagle delay: every request and answer is small packets first, and waiting to batch
  // them costs a delayed ACK (tens of ms) each. Batching is done here instead, per turn.
  socket.setNoDelay(true)
  socket.connect(port, host)
  // After connect(): it puts back the prototype's write (how Node drops its pre-connect queue).
  const write = socket.write
  let corked = false
  const flush = (): void => {
    corked = false
    socket.uncork()
  }
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>): boolean {
    if (!corked) {
      corked = true
      socket.cork()
      process.nextTick(flush)
    }
    return write.apply(this, args as never)
  } as Socket['write']
  return socket
}
