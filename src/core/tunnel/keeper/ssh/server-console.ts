/**
 * What the tunnel server says on the connection's session channel. The product's server
 * (sish-based, as its reference deployment shows) writes to its clients there, in lines ending
 * in CRLF: `ssh -R …` without `-N` shows them. An SSH refusal of a forward carries no reason, so
 * a server that explains one can only do it there. The keeper opens the session only after a
 * forward was refused: a shell request (without a terminal, as such a client makes; nothing is
 * ever typed) starts a login shell with its startup files on an ordinary OpenSSH server, a side
 * effect on a server we only meant to forward through. It reads for a bounded time, keeps the
 * last few lines, cleaned, and closes the session. Only our own sentence shapes are read from
 * them. A server that refuses the session loses nothing.
 */
import type { ClientChannel } from 'ssh2'
import type Client from 'ssh2/lib/client.js'
import { cleanText } from '../../../text/printable.js'

const KEPT_LINES = 20
// eslint-disable-next-line no-control-regex -- an escape sequence is what it removes
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g
const LINE_MAX = 300
/** Once the session is open, how long the server's words may take to follow it. */
const SETTLE_MS = 150
/** The longest a refused start waits for the server's word. */
const WAIT_MAX_MS = 1500

/**
 * The server's console, opened when this is made (after a refusal) and read until `find` has its
 * answer: then it is closed, or closed as soon as it opens, should it open later.
 */
export class ServerConsole {
  private readonly lines: string[] = []
  private partial = ''
  private readonly listeners = new Set<() => void>()
  private readonly opened: Promise<void>
  private stream: ClientChannel | undefined
  private closed = false

  constructor(client: Client) {
    this.opened = new Promise<void>(resolve => {
      try {
        client.shell(false, (error: Error | undefined, stream: ClientChannel) => {
          if (error === undefined) {
            stream.on('error', () => undefined)
            stream.on('data', (chunk: Buffer) => this.take(chunk))
            stream.stderr.on('data', (chunk: Buffer) => this.take(chunk))
            this.stream = stream
            if (this.closed) this.close()
          }
          resolve()
        })
      } catch {
        // Not connected any more: there is nothing to hear.
        resolve()
      }
    })
  }

  /**
   * The last line the server said that `wanted` accepts, waiting for it until the session has
   * been open a moment (the words follow its opening), and never longer than WAIT_MAX_MS; the
   * session is closed then.
   */
  find(wanted: (line: string) => boolean): Promise<string | undefined> {
    const found = (): string | undefined => [...this.lines].reverse().find(wanted)
    if (found() !== undefined) {
      this.close()
      return Promise.resolve(found())
    }
    return new Promise(resolve => {
      let finished = false
      const timers: NodeJS.Timeout[] = []
      const finish = (): void => {
        if (finished) return
        finished = true
        this.listeners.delete(check)
        for (const timer of timers) clearTimeout(timer)
        this.close()
        resolve(found())
      }
      const check = (): void => {
        if (found() !== undefined) finish()
      }
      this.listeners.add(check)
      timers.push(setTimeout(finish, WAIT_MAX_MS))
      void this.opened.then(() => {
        if (!finished) timers.push(setTimeout(finish, SETTLE_MS))
      })
    })
  }

  /** Done listening: the session goes, so a shell the server may have started ends now. */
  private close(): void {
    this.closed = true
    try {
      this.stream?.close()
    } catch {
      // The connection is gone already, and the session with it.
    }
  }

  private take(chunk: Buffer): void {
    const parts = (this.partial + chunk.toString('utf8')).split(/\r?\n/)
    // An unended line is kept, bounded, until its end arrives.
    this.partial = (parts.pop() ?? '').slice(-LINE_MAX * 4)
    for (const part of parts) {
      // The product's server colours some of its words (ANSI escapes); the words are kept.
      const line = cleanText(part.replace(ANSI_ESCAPE, ''), LINE_MAX)
      if (line === '') continue
      this.lines.push(line)
      if (this.lines.length > KEPT_LINES) this.lines.shift()
    }
    for (const listener of this.listeners) listener()
  }
}

const FORWARD_LIMIT = /at most (\d{1,5}) forwards per tunnel user\b/i

/** The limit a server line names ("… at most 5 forwards per tunnel user …"), if it names one. */
export function forwardLimitIn(line: string | undefined): number | undefined {
  const match = line === undefined ? null : FORWARD_LIMIT.exec(line)
  return match === null ? undefined : Number(match[1])
}

export const namesForwardLimit = (line: string): boolean => forwardLimitIn(line) !== undefined

/** `Forward "web-0" refused: the name is in use …`, the stand-in's words for a taken name. */
const NAME_TAKEN = /^Forward "([^"]{1,80})" refused: the name is in use\b/i

/**
 * Which of `names` (forwards we asked for and were refused) a server line says is in use. The
 * answer is always one of our own names: the server's quote only picks which one.
 */
export function takenNameIn(
  line: string | undefined,
  names: readonly string[]
): string | undefined {
  const match = line === undefined ? null : NAME_TAKEN.exec(line)
  if (match === null) return undefined
  const quoted = match[1].toLowerCase()
  return names.find(name => name.toLowerCase() === quoted)
}
