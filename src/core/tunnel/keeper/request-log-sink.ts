/**
 * The request log as the keeper holds it: a HarWriter on the files main chose, opened before the
 * keeper reports ready (so the HAR exists and is valid once main returns), fed one record per
 * request, and closed at the keeper's end, before its final record, so post reads the final HAR
 * and tally. A log that cannot be written never ends the tunnel: each distinct failure is one
 * line in the keeper's log.
 */
import { printable } from '../../text/printable.js'
import { HarWriter } from '../request-log/har-file.js'
import type { RequestRecord } from '../request-log/record.js'
import { DEFAULT_REQUEST_LOG, gateCookieValue, type KeeperConfig } from '../protocol.js'

const MESSAGE_MAX = 400
/** Distinct writer failures logged at most; the keeper's log has a cap of its own too. */
const MESSAGES_KEPT = 20

export class RequestLogSink {
  private writer: HarWriter | undefined
  private readonly logged = new Set<string>()

  constructor(
    private readonly config: KeeperConfig,
    private readonly log: (message: string) => void
  ) {}

  /** Whether the configuration asks for a log and says where it goes. */
  static wanted(config: KeeperConfig): boolean {
    return (
      (config.requestLog ?? DEFAULT_REQUEST_LOG).enabled && config.requestLogFiles !== undefined
    )
  }

  /** Starts an empty, valid HAR; on failure the keeper goes on without a log, and says so. */
  async open(): Promise<void> {
    const { config } = this
    const files = config.requestLogFiles
    if (files === undefined) return
    const publicUrls = config.publicUrls ?? {}
    // The gate's cookie is as good as its secret: never in the log, whatever the options say.
    const gateCookie = config.gateSecret ? gateCookieValue(config.gateSecret) : undefined
    const secrets = [config.token, config.gateSecret, gateCookie, config.proofKey].filter(
      (secret): secret is string => secret !== undefined && secret !== ''
    )
    try {
      this.writer = await HarWriter.open({
        harPath: files.harPath,
        spoolPath: files.spoolPath,
        tallyPath: files.tallyPath,
        publicBaseUrl: entry => (Object.hasOwn(publicUrls, entry) ? publicUrls[entry] : undefined),
        creatorVersion: config.toolVersion ?? 'unknown',
        redaction: {
          headers: (config.requestLog ?? DEFAULT_REQUEST_LOG).headers,
          logBodies: (config.requestLog ?? DEFAULT_REQUEST_LOG).bodyBytes > 0,
          secrets
        },
        onError: message => this.failed(message)
      })
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      this.failed(
        `could not start the request log ${files.harPath} (${code ?? message}); requests are not logged`
      )
    }
  }

  /** Never throws, never waits (HarWriter.record). */
  record(record: RequestRecord): void {
    this.writer?.record(record)
  }

  /** The final HAR and tally, then no more records. */
  async close(): Promise<void> {
    const writer = this.writer
    if (writer === undefined) return
    try {
      await writer.close()
    } catch (error) {
      this.failed(`could not finish the request log (${(error as Error).message})`)
    }
  }

  private failed(message: string): void {
    // Paths and OS error codes; printable, not cleanText, which would hide a long folder name.
    const line = printable(`Request log: ${message}`, MESSAGE_MAX)
    if (this.logged.has(line) || this.logged.size >= MESSAGES_KEPT) return
    this.logged.add(line)
    this.log(line)
  }
}
