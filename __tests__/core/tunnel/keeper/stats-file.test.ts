/**
 * The keeper's record (its stats file) is how post finds and stops it: the keeper writes it
 * before it tells main it is ready, and a record it cannot write is a failed start.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeStartFailure } from '../../../../src/core/tunnel/main/start-failure.js'
import { cleanUp, hostKey, runKeeper, startStandIn } from '../../../helpers/ssh-stand-in.js'

let dir: string
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'keeper-record-'))))
afterEach(async () => {
  await cleanUp()
  rmSync(dir, { recursive: true, force: true })
})

// /dev/full answers every write with ENOSPC: a full disk, on Linux.
const withFullDisk = existsSync('/dev/full') ? it : it.skip

/** Every write of the record from now on goes to a full disk. */
const fillDisk = (statsPath: string) => symlinkSync('/dev/full', `${statsPath}.tmp`)

describe('a record the keeper cannot write', () => {
  withFullDisk('fails the start before any login, naming the file and the error', async () => {
    const server = await startStandIn({ hostKeys: [hostKey('ed25519')] })
    const statsPath = join(dir, 'stats.json')
    fillDisk(statsPath)
    const keeper = runKeeper(server.port, { statsPath })
    const report = await keeper.report
    expect(report).toEqual({
      type: 'failed',
      cause: 'record',
      detail: `the tunnel process could not write its record ${statsPath} (ENOSPC)`
    })
    expect(await keeper.done).toMatchObject({ state: 'ended' })
    expect(server.handshakes).toBe(0)
    expect(server.logins).toEqual([])
    expect(describeStartFailure(report, keeper.config.logPath, 'RUNNER_TEMP')).toBe(
      `The tunnel did not start: the tunnel process could not write its record ${statsPath} (ENOSPC); without it, the tunnel could not be stopped cleanly when the job ends, nor say what it did. Free some space in RUNNER_TEMP (or make it writable) and run the job again.`
    )
  })

  withFullDisk('fails the start when the disk fills before ready, and leaves', async () => {
    const statsPath = join(dir, 'stats.json')
    // The disk fills while the keeper logs in: its ready record cannot be written.
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      accept: () => {
        fillDisk(statsPath)
        return true
      }
    })
    const keeper = runKeeper(server.port, { statsPath })
    expect(await keeper.report).toEqual({
      type: 'failed',
      cause: 'record',
      detail: `the tunnel process could not write its record ${statsPath} (ENOSPC)`
    })
    expect(await keeper.done).toMatchObject({ state: 'ended' })
    expect(keeper.log()).toContain(`Ended: could not start: could not write its record`)
  })
})
