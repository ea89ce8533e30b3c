/**
 * The tunnel's own answers (the gate's refusals, the URL proof's exchanges, any answer a hook
 * gives instead of the app) as the HAR keeps them: in `log._tunnelAnswers`, beside
 * `log.entries` and never in it, so that a consumer that serves the file's answers (Playwright's
 * routeFromHAR) serves the app's and not the gate's 401 to a browser's first request. HAR allows
 * custom fields that start with `_`; each item has the shape of an entry, so tools can read it.
 *
 * The list is written after the entries, in the file's closing text, so appending entries stays
 * the cheap path (har-append.ts). It is held in memory, so it has a budget of its own: the
 * latest answers are kept, bodies go first, and the file says how many went.
 */

/** The most bytes the list takes in the file (and in memory): a flood of refusals stays small. */
export const TUNNEL_ANSWERS_MAX_BYTES = 256 * 1024

/** The list's budget for a file of `maxBytes`: an eighth of it, at most the bound above. */
export function tunnelAnswersBudget(maxBytes: number): number {
  return Math.min(TUNNEL_ANSWERS_MAX_BYTES, Math.floor(maxBytes / 8))
}

/** Between two items of the list. */
const SEPARATOR = ',\n'

export class TunnelAnswers {
  private readonly lines: string[] = []
  private bytes = 0
  /** Answers dropped to stay within the budget, and answers kept without their bodies. */
  dropped = 0
  /** Changed since the file last had it. */
  changed = false

  constructor(private readonly budget: number) {}

  /** Adds one answer's line (and the line without bodies, used when the whole does not fit). */
  add(line: string, bare: string): void {
    const kept = Buffer.byteLength(line) <= this.budget ? line : bare
    const size = Buffer.byteLength(kept)
    this.changed = true
    if (size > this.budget) {
      this.dropped++
      return
    }
    this.lines.push(kept)
    this.bytes += size + SEPARATOR.length
    while (this.bytes > this.budget) {
      this.bytes -= Buffer.byteLength(this.lines.shift()!) + SEPARATOR.length
      this.dropped++
    }
  }

  /** The file's closing text: the end of `entries`, then this list, then the log's end. */
  closingText(): string {
    const list = this.lines.length === 0 ? '' : `\n${this.lines.join(SEPARATOR)}\n`
    return `\n],"_tunnelAnswers":[${list}],"_tunnelAnswersDropped":${this.dropped}}}\n`
  }
}

/** The closing text's largest size: the budget, and room for any count of drops. */
export function closingTextBytes(budget: number): number {
  const widest = `\n],"_tunnelAnswers":[\n\n],"_tunnelAnswersDropped":${Number.MAX_SAFE_INTEGER}}}\n`
  return Buffer.byteLength(widest) + budget
}
