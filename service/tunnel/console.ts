/**
 * The server's console on one connection. The real tunnel server (sish-based) talks to a client
 * on its session channel: lines ending in CRLF, which `ssh -R …` without `-N` shows. A refused
 * forward is told here, since an SSH refusal of a forward (`tcpip-forward` failure) carries no
 * reason. A session is a console and nothing else: a shell request is accepted and runs nothing,
 * a command is refused. Without a session (`ssh -N`) nothing is told; what was said before a
 * session opened is kept for the connection, so a client that opens its console only after a
 * refusal still reads why.
 */
import type { Connection, ServerChannel } from 'ssh2'

/** Lines said before the client asked for its shell: a client may ask for both at once. */
const KEPT_LINES = 32

export class SessionConsole {
  private stream: ServerChannel | undefined
  private readonly waiting: string[] = []

  /**
   * `opened`: told of every session channel asked for, so a test can count them; `silent`: every
   * one is refused, and nothing is ever told.
   */
  constructor(connection: Connection, opened: () => void = () => undefined, silent = false) {
    connection.on('session', (accept, reject) => {
      opened()
      if (silent) return reject()
      const session = accept()
      session.on('pty', ptyAccept => ptyAccept?.())
      session.on('shell', shellAccept => {
        const stream = shellAccept()
        stream.on('error', () => undefined)
        // What the client types is read and dropped, so its window never fills.
        stream.on('data', () => undefined)
        this.stream ??= stream
        for (const line of this.waiting.splice(0)) this.write(line)
      })
      session.on('exec', (_execAccept, execReject) => execReject?.())
    })
  }

  /** One line to the client; kept until its console is open. */
  say(line: string): void {
    if (this.stream !== undefined) return this.write(line)
    if (this.waiting.length < KEPT_LINES) this.waiting.push(line)
  }

  private write(line: string): void {
    if (this.stream?.writable === true) this.stream.write(`${line}\r\n`)
  }
}
