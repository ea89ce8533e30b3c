/**
 * A tunnel's folder as a keeper leaves it for post: its stats (with the timeline), and its
 * request log written by the request-log module itself (the HAR where the host puts it, the tally
 * in the folder). A stand-in process whose command line ends with the folder, as the keeper's
 * does, waits to be stopped. Post's side is tested on these files without a keeper.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { directoryId } from '../../src/core/owned-dir.js'
import { startTimeOf } from '../../src/core/tunnel/saved/process-identity.js'
import { tunnelFiles, type TunnelTimeline } from '../../src/core/tunnel/protocol.js'
import { HarWriter } from '../../src/core/tunnel/request-log/har-file.js'
import type { RequestRecord } from '../../src/core/tunnel/request-log/record.js'
import { aRecord } from '../core/tunnel/request-log/records.js'

export interface LeftTunnel {
  dir: string
  harPath: string
  tallyPath: string
  /** What main saved for post: the tunnel, and the request log. */
  state: Record<string, string>
}

export interface LeftTunnelOptions {
  /** Where the host puts the HAR of a tunnel in `dir`. */
  harPathFor: (dir: string) => string
  /** Recorded in order; none: a log with zero requests. Absent: the request log was off. */
  records?: Partial<RequestRecord>[]
  timeline?: TunnelTimeline
}

export async function leftTunnel(
  tempRoot: string,
  { harPathFor, records, timeline }: LeftTunnelOptions
): Promise<LeftTunnel> {
  const dir = mkdtempSync(join(tempRoot, 'tunnel-'))
  const files = tunnelFiles(dir)
  const harPath = harPathFor(dir)
  const idle = 'process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)'
  const pid = spawn(process.execPath, ['-e', idle, dir], { stdio: 'ignore' }).pid!
  // Given time to start, so that its command line is node's and SIGTERM has its handler.
  await new Promise(resolve => setTimeout(resolve, 300))
  writeFileSync(files.logPath, '2026-11-23T10:04:00.000Z Stopped\n')
  writeFileSync(
    files.statsPath,
    JSON.stringify({
      pid,
      startedAt: '2026-11-23T10:00:00.000Z',
      readyAt: '2026-11-23T10:00:01.000Z',
      updatedAt: '2026-11-23T10:04:00.000Z',
      state: 'stopped',
      reconnects: 0,
      connections: records?.length ?? 0,
      bytesIn: 10,
      bytesOut: 20,
      localErrors: 0,
      ...(timeline && { timeline })
    })
  )
  const state: Record<string, string> = {
    tunnel: JSON.stringify({
      pid,
      dir,
      dirId: directoryId(dir),
      startTime: startTimeOf(pid),
      started: true
    })
  }
  if (records !== undefined) {
    const writer = await HarWriter.open({
      harPath,
      spoolPath: files.spoolPath,
      tallyPath: files.tallyPath,
      publicBaseUrl: () => 'https://web-u1.tunnel.example',
      creatorVersion: '0.0.0-test',
      redaction: { headers: 'redacted', logBodies: false, secrets: [] }
    })
    for (const record of records) writer.record(aRecord(record))
    await writer.close()
    state['request-log'] = JSON.stringify({ harPath, tallyPath: files.tallyPath })
  }
  return { dir, harPath, tallyPath: files.tallyPath, state }
}
