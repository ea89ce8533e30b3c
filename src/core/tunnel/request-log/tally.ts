/**
 * What the job summary and the CLI's `revoke` say about the requests, kept as they pass: counts
 * by status class and by entry over every request (the HAR may have dropped some under its cap),
 * and the latest failures and the latest other requests, a few rows each. Its size does not grow
 * with the number of requests; the request log writes it beside the HAR for post to read.
 */
import { readFileSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { ChallengeWatch, isGateChallenge } from './challenge.js'
import type { RequestOutcome, RequestRecord } from './record.js'

/** Rows kept of each kind: more than a summary shows. */
export const TALLY_ROWS = 50
/** Entry names counted one by one; more than any run exposes, the rest are counted together. */
const ENTRIES_COUNTED = 20
export const OTHER_ENTRIES = '(other entries)'
/** Longest target kept for a row: the summary cuts it shorter. */
const KEPT_TARGET = 400

export type StatusClass =
  | '1xx'
  | '2xx'
  | '3xx'
  | '4xx'
  | '5xx'
  | 'no answer'
  | 'refused'
  | 'challenged'
  | 'unreachable'
  | 'not HTTP'
  | 'proof'

/** The order classes are told in. */
export const STATUS_CLASSES: readonly StatusClass[] = [
  '1xx',
  '2xx',
  '3xx',
  '4xx',
  '5xx',
  'no answer',
  'refused',
  'challenged',
  'unreachable',
  'not HTTP',
  'proof'
]

export interface TallyRow {
  startedAt: number
  entry: string
  /** The channel's originator (RequestRecord.client); '' when unknown. */
  client: string
  /** The public client as an edge proxy reported it: shown, never decided on. */
  edgeReportedClient?: string
  method: string
  target: string
  status?: number
  durationMs: number
  bytesIn: number
  bytesOut: number
  outcome: RequestOutcome
  /** A gate's 401 that the client answered with the secret (challenge.ts): not a failure. */
  challenge?: boolean
}

export interface TallyData {
  total: number
  byClass: Partial<Record<StatusClass, number>>
  byEntry: Record<string, number>
  /** The latest failures (5xx, no answer, refused, unreachable), oldest first. */
  failures: TallyRow[]
  /** The latest other requests, oldest first. */
  latest: TallyRow[]
}

export function statusClassOf(record: Pick<RequestRecord, 'outcome' | 'status'>): StatusClass {
  if (record.outcome === 'refused') return 'refused'
  if (record.outcome === 'unreachable') return 'unreachable'
  if (record.outcome === 'not-http') return 'not HTTP'
  if (record.outcome === 'proof') return 'proof'
  const status = record.status
  if (status === undefined || status < 100 || status > 599) return 'no answer'
  return `${Math.floor(status / 100)}xx` as StatusClass
}

/** What the summary shows first: the app failing, the gate refusing, the app not listening. */
export function isFailure(statusClass: StatusClass): boolean {
  return ['5xx', 'no answer', 'refused', 'unreachable'].includes(statusClass)
}

export class RequestTally {
  private readonly data: Omit<TallyData, 'byEntry'> = {
    total: 0,
    byClass: {},
    failures: [],
    latest: []
  }
  // A Map: entry names come from outside, and `__proto__` is a name an object would mishandle.
  private readonly byEntry = new Map<string, number>()
  private readonly challenges = new ChallengeWatch<TallyRow>()

  /** Counts a redacted record and keeps it as a row. */
  add(record: RequestRecord): void {
    const statusClass = statusClassOf(record)
    this.data.total++
    this.data.byClass[statusClass] = (this.data.byClass[statusClass] ?? 0) + 1
    const entry =
      this.byEntry.has(record.entry) || this.byEntry.size < ENTRIES_COUNTED
        ? record.entry
        : OTHER_ENTRIES
    this.byEntry.set(entry, (this.byEntry.get(entry) ?? 0) + 1)
    const row = rowOf(record)
    const rows = isFailure(statusClass) ? this.data.failures : this.data.latest
    rows.push(row)
    if (rows.length > TALLY_ROWS) rows.shift()
    if (isGateChallenge(record)) this.challenges.refused(record, row)
    const challenge = this.challenges.answered(record)
    if (challenge !== undefined) this.challenged(challenge)
  }

  /** A refusal turned out a challenge: counted apart, and moved from the failures to the rest. */
  private challenged(row: TallyRow): void {
    const { byClass, failures, latest } = this.data
    byClass.refused = (byClass.refused ?? 1) - 1
    if (byClass.refused === 0) delete byClass.refused
    byClass.challenged = (byClass.challenged ?? 0) + 1
    row.challenge = true
    const at = failures.indexOf(row)
    if (at < 0) return
    failures.splice(at, 1)
    // The rest stay oldest first: the challenge goes before the rows that started after it.
    const before = latest.findIndex(other => other.startedAt > row.startedAt)
    latest.splice(before < 0 ? latest.length : before, 0, row)
    if (latest.length > TALLY_ROWS) latest.shift()
  }

  toJSON(): TallyData {
    return { ...this.data, byEntry: Object.fromEntries(this.byEntry) }
  }
}

function rowOf(record: RequestRecord): TallyRow {
  return {
    startedAt: record.startedAt,
    entry: record.entry.slice(0, KEPT_TARGET),
    client: (record.client ?? '').slice(0, KEPT_TARGET),
    ...(record.edgeReportedClient !== undefined && {
      edgeReportedClient: record.edgeReportedClient.slice(0, KEPT_TARGET)
    }),
    method: record.method.slice(0, KEPT_TARGET),
    target: record.target.slice(0, KEPT_TARGET),
    ...(record.status === undefined ? {} : { status: record.status }),
    durationMs: record.durationMs,
    bytesIn: record.bytesIn,
    bytesOut: record.bytesOut,
    outcome: record.outcome
  }
}

/** Writes the tally whole beside the HAR, renamed into place, readable by its owner alone. */
export async function writeTally(path: string, tally: RequestTally): Promise<void> {
  await writeFile(`${path}.tmp`, JSON.stringify(tally), { mode: 0o600 })
  await rename(`${path}.tmp`, path)
}

/**
 * The tally the request log wrote, or undefined when there is none or it is not one (a file left
 * half-made by a killed process cannot be: it is renamed into place whole).
 */
export function readTally(path: string): TallyData | undefined {
  try {
    const data: unknown = JSON.parse(readFileSync(path, 'utf8'))
    return isTallyData(data) ? data : undefined
  } catch {
    return undefined
  }
}

function isTallyData(data: unknown): data is TallyData {
  const candidate = data as Partial<TallyData> | null
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    isCount(candidate.total) &&
    isCounts(candidate.byClass) &&
    isCounts(candidate.byEntry) &&
    isRows(candidate.failures) &&
    isRows(candidate.latest)
  )
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function isCounts(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(isCount)
  )
}

function isRows(value: unknown): value is TallyRow[] {
  return (
    Array.isArray(value) &&
    value.every(
      row =>
        typeof row === 'object' &&
        row !== null &&
        ['entry', 'client', 'method', 'target', 'outcome'].every(
          key => typeof row[key] === 'string'
        ) &&
        ['startedAt', 'durationMs', 'bytesIn', 'bytesOut'].every(
          key => typeof row[key] === 'number'
        ) &&
        (row.status === undefined || typeof row.status === 'number') &&
        (row.edgeReportedClient === undefined || typeof row.edgeReportedClient === 'string') &&
        (row.challenge === undefined || typeof row.challenge === 'boolean')
    )
  )
}
