/**
 * Text from the tunnel server is untrusted: the keeper cleans it and cuts it short before it
 * logs or reports it, and main cleans the keeper's report again before quoting it.
 */
import { describeStartFailure } from '../../../../../src/core/tunnel/main/start-failure.js'
import { commandsObeyedIn } from '../../../../helpers/log-readers.js'
import { cleanUp, runKeeper, startDisconnectingServer } from '../../../../helpers/ssh-stand-in.js'

afterEach(cleanUp)

// Control characters (C0, DEL, C1) and bidi overrides and isolates.
const HOSTILE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u

describe('a tunnel server that disconnects with hostile text', () => {
  it('reaches the report and the log clean and short', async () => {
    const text = `\u001b[31m\u202eevil\r\n::error::forged ${'lorem ipsum '.repeat(256)}`
    const port = await startDisconnectingServer(text)
    const keeper = runKeeper(port)
    const report = await keeper.report
    expect(report).toMatchObject({ type: 'failed', cause: 'connect' })
    const detail = (report as { detail: string }).detail
    expect(detail).toMatch(/^\[31m evil ::error::forged (lorem ipsum )+[a-z ]*\.\.\.$/)
    expect(detail.length).toBeLessThanOrEqual(200)
    expect(detail).not.toMatch(HOSTILE)
    const log = keeper.log()
    expect(log).toContain('[31m evil ::error::forged')
    expect(log.replace(/\n/g, '')).not.toMatch(HOSTILE)
    expect(log).not.toContain('lorem ipsum '.repeat(30))

    const message = describeStartFailure(report, keeper.config.logPath, 'RUNNER_TEMP')
    expect(message).toMatch(/^The tunnel did not start: could not connect to the tunnel server \(/)
    expect(message.length).toBeLessThan(450)
  })
})

describe('a tunnel server that sends log commands before the key exchange', () => {
  // Sent in the clear before any host key is shown: a pinned tunnel-host-key cannot stop it.
  it.each([
    '##vso[task.setvariable variable=SVC_BASE_URL]https://evil.example',
    'x ##VSO[task.prependpath]/tmp/evil',
    '##[group]forged',
    '--- forged group',
    '::add-mask::x'
  ])('%j reaches no printed line as a command', async text => {
    const port = await startDisconnectingServer(text)
    const keeper = runKeeper(port)
    const report = await keeper.report
    expect(report).toMatchObject({ type: 'failed', cause: 'connect' })
    const message = describeStartFailure(report, keeper.config.logPath, 'RUNNER_TEMP')
    expect(commandsObeyedIn([message, (report as { detail: string }).detail])).toEqual([])
  })
})

describe('describeStartFailure', () => {
  it("cleans and cuts the keeper's detail, which is input to main", () => {
    const message = describeStartFailure(
      {
        type: 'failed',
        cause: 'timeout',
        detail: `\u001b[2J\u202e${'y'.repeat(5000)}\n::stop-commands::x`
      },
      '/tmp/tunnel.log',
      'RUNNER_TEMP'
    )
    expect(message).not.toMatch(HOSTILE)
    expect(message).toContain('\\u001b[2J\\u202e')
    expect(message.length).toBeLessThan(600)
    expect(message).toMatch(/Check that the runner can reach the tunnel server/)
  })

  it('says what to do when the keeper could not write its record', () => {
    expect(
      describeStartFailure(
        {
          type: 'failed',
          cause: 'record',
          detail: 'the tunnel process could not write its record /tmp/t/stats.json (ENOSPC)'
        },
        '/tmp/t/tunnel.log',
        '--work-dir'
      )
    ).toBe(
      'The tunnel did not start: the tunnel process could not write its record /tmp/t/stats.json (ENOSPC); without it, the tunnel could not be stopped cleanly when the job ends, nor say what it did. Free some space in --work-dir (or make it writable) and run the job again.'
    )
  })
})
