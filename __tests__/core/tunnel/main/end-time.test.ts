/**
 * When main tells the keeper to end by itself: the end time it computes from the host's
 * KeeperLaunch.ends and the credential's expiry, what it sends over IPC, and what the step
 * says. The keeper here is a stand-in script that records its configuration and reports ready.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TunnelEnd } from '../../../../src/core/host.js'
import { provision } from '../../../../src/core/provision.js'
import { keeperEnd } from '../../../../src/core/tunnel/main/end-time.js'
import type { KeeperConfig } from '../../../../src/core/tunnel/protocol.js'
import { bundledKeeper } from '../../../../src/github/keeper-launch.js'
import { useLocalService } from '../../../helpers/core-step.js'
import { logLines, memoryHost } from '../../../helpers/memory-host.js'

const { scratch, options } = useLocalService('end-time-test-')

const start = Date.parse('2026-11-23T10:00:00Z')
const inMinutes = (minutes: number) => new Date(start + minutes * 60_000).toISOString()

describe('keeperEnd', () => {
  it('gives no end on a host that stops the keeper itself', () => {
    expect(keeperEnd(undefined, start, inMinutes(10))).toEqual({})
  })

  it('ends at the expiry when it comes before the longest life', () => {
    expect(keeperEnd({ maxMinutes: 30 }, start, inMinutes(10))).toEqual({ endAt: inMinutes(10) })
  })

  it('ends after the longest life when that comes before the expiry', () => {
    expect(keeperEnd({ maxMinutes: 5, watchPid: 77 }, start, inMinutes(10))).toEqual({
      endAt: inMinutes(5),
      watchPid: 77
    })
  })

  it('without a longest life, ends at the expiry, or after 60 minutes without one', () => {
    expect(keeperEnd({}, start, inMinutes(600))).toEqual({ endAt: inMinutes(600) })
    expect(keeperEnd({}, start, undefined)).toEqual({ endAt: inMinutes(60) })
    expect(keeperEnd({ watchPid: 5 }, start, 'not a time')).toEqual({
      endAt: inMinutes(60),
      watchPid: 5
    })
  })

  it('with a longest life and no expiry, ends after that life', () => {
    expect(keeperEnd({ maxMinutes: 120 }, start, undefined)).toEqual({ endAt: inMinutes(120) })
  })
})

/** Main with `expose`, its keeper a script that writes what it was sent and reports ready. */
async function openWith(ends: TunnelEnd | undefined) {
  const dir = scratch()
  const sent = join(dir, 'config.json')
  const script = join(dir, 'keeper.cjs')
  writeFileSync(
    script,
    `process.once('message', config => {
      delete config.token
      require('fs').writeFileSync(${JSON.stringify(sent)}, JSON.stringify(config))
      process.send({ type: 'ready', fingerprint: 'SHA256:stand-in' })
      process.once('disconnect', () => process.exit(0))
    })\n`
  )
  const host = memoryHost({
    // The stand-in keeper answers no proof: what is tested here is the configuration it is sent.
    options: options({
      expose: 'web=8080',
      'url-template': 'http://{name}-{user}.localhost:9',
      'prove-url': 'false'
    }),
    tempRoot: scratch(),
    now: '2026-11-23T10:00:00Z',
    keeperLaunch: {
      scriptPath: script,
      execArgv: [],
      environment: { PATH: process.env.PATH ?? '' },
      ...(ends !== undefined && { ends })
    }
  })
  expect(await provision(host)).toEqual({ status: 'provisioned' })
  const config = JSON.parse(readFileSync(sent, 'utf8')) as KeeperConfig
  const info = logLines(host, 'info')
  return { host, config, info, tunnelLine: info.find(line => line.startsWith('The tunnel ')) }
}

describe('main, opening the tunnel', () => {
  it('sends the end time and the pid to watch, and says when the tunnel ends by itself', async () => {
    const { config, tunnelLine } = await openWith({ maxMinutes: 15, watchPid: 4242 })
    // The service's credential expires a day after the host's clock: the 15 minutes come first.
    expect(Date.parse(config.expiresAt!)).toBeGreaterThan(Date.parse(inMinutes(15)))
    expect(config).toMatchObject({ endAt: inMinutes(15), watchPid: 4242 })
    expect(tunnelLine).toMatch(
      new RegExp(
        `^The tunnel ends by itself at ${inMinutes(15).replace(/\./g, '\\.')} at the latest, or once process 4242 ends; revoking the credential stops it sooner \\(process \\d+, log .*tunnel\\.log\\)\\.$`
      )
    )
  })

  it('without a longest life, sends the credential expiry as the end time', async () => {
    const { config, tunnelLine } = await openWith({})
    expect(config.endAt).toBe(new Date(config.expiresAt!).toISOString())
    expect(config.watchPid).toBeUndefined()
    expect(tunnelLine).toContain(`The tunnel ends by itself at ${config.endAt} at the latest; `)
  })

  it('on a host that stops the keeper itself, sends no end, as the GitHub host does', async () => {
    expect(bundledKeeper()).not.toHaveProperty('ends')
    const { config, tunnelLine, host } = await openWith(undefined)
    expect(config).not.toHaveProperty('endAt')
    expect(config).not.toHaveProperty('watchPid')
    expect(tunnelLine).toMatch(/^The tunnel runs until the job ends \(process \d+, log .*\)\.$/)
    // The host's label names the host-key option, in the notice and for the keeper's messages.
    expect(config.hostKeyOptionName).toBe('--tunnel-host-key')
    expect(logLines(host, 'notice')).toEqual([
      "The tunnel server's host key is SHA256:stand-in; it was accepted because --tunnel-host-key is empty. To refuse any other key, set --tunnel-host-key: SHA256:stand-in"
    ])
  })
})
