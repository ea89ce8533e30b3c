import { describeStartFailure } from '../../../../src/core/tunnel/main/start-failure.js'

describe('describeStartFailure', () => {
  it.each([
    [{ type: 'failed', cause: 'auth', detail: 'refused' }, 'The credential may have been revoked'],
    [
      { type: 'failed', cause: 'forward', detail: 'refused "web"', name: 'web' },
      'Choose another name in expose'
    ],
    [
      { type: 'failed', cause: 'forward', detail: 'refused "web": at most 5', forwardLimit: 5 },
      'at most 5. Expose fewer entries, or run fewer jobs that expose at once with one shared'
    ],
    [
      { type: 'failed', cause: 'timeout', detail: 'slow' },
      'raise timeout-seconds and max-attempts'
    ],
    [
      { type: 'failed', cause: 'connect', detail: 'ECONNREFUSED' },
      'could not connect to the tunnel server (ECONNREFUSED). Check tunnel-host and tunnel-port'
    ],
    [{ type: 'failed', cause: 'host-key', detail: 'key X' }, 'update tunnel-host-key'],
    [{ type: 'died', detail: 'exit code 1' }, 'The last line of its log: Ended: boom'],
    [{ type: 'ready', fingerprint: 'x' }, 'The tunnel started.']
  ] as const)('explains %j', (outcome, text) => {
    expect(describeStartFailure(outcome, 'Ended: boom', 'RUNNER_TEMP')).toContain(text)
  })

  it('names the host-key option as the host labels it', () => {
    const outcome = { type: 'failed', cause: 'host-key', detail: 'key X' } as const
    expect(
      describeStartFailure(outcome, 'Ended: boom', 'RUNNER_TEMP', {
        hostKeyOption: 'input tunnel-host-key'
      })
    ).toContain('update input tunnel-host-key;')
  })
})
