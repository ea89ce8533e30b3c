/** The fuzz suite's oracle must itself be able to fail: each rule, broken on purpose. */
import type { StepOutcome } from '../helpers/in-process-step.js'
import { API_KEY, TOKEN, VALID_ANSWER } from './answers.js'
import { findProblems, isClean, runnerCommand, type Observed } from './oracle.js'

function outcome(lines: string[], rest: Partial<StepOutcome> = {}): StepOutcome {
  return {
    lines: [...lines],
    commands: [],
    errors: [],
    warnings: [],
    masks: lines.filter(l => l.startsWith('::add-mask::')).map(l => l.slice(12)),
    env: {},
    outputs: {},
    state: {},
    summary: '',
    failed: false,
    ...rest
  }
}

const EXPORTED = {
  env: {
    SVC_TUNNEL_TOKEN: TOKEN,
    SVC_TUNNEL_USER: 'ab12c',
    SVC_TUNNEL_HOST: 'tunnel.example.test',
    SVC_TUNNEL_PORT: '2223'
  },
  outputs: {
    token: TOKEN,
    'tunnel-user': 'ab12c',
    'client-id': 'client-77',
    'tunnel-host': 'tunnel.example.test',
    'tunnel-port': '2223',
    'expires-at': '2026-11-23T11:00:00Z',
    'ttl-minutes': '60',
    'project-slug': 'web-shop',
    credential: 'cicd'
  }
}
const CONTEXT = { apiKey: API_KEY, project: 'web-shop', secrets: [TOKEN], revokeAnswerOk: true }
const MASKS = [`::add-mask::${API_KEY}`, `::add-mask::${TOKEN}`]

function sound(): Observed {
  return {
    main: outcome(MASKS, EXPORTED),
    post: outcome([`::add-mask::${API_KEY}`, 'Revoked the tunnel token of user ab12c.']),
    lastAnswer: VALID_ANSWER,
    revokes: [{ step: 'post', body: { tunnel_user: 'ab12c' } }]
  }
}

describe('runnerCommand reads lines as the runner does', () => {
  it.each([
    ['::add-mask::x', 'add-mask'],
    ['   ::STOP-COMMANDS::x', 'stop-commands'],
    ['text ##[stop-commands]x', 'stop-commands'],
    ['Project "##[set-env name=A]b"', 'set-env']
  ])('%j is a %s command', (line, name) => {
    expect(runnerCommand(line)?.name).toBe(name)
  })

  it.each(['x ::add-mask::y', '::not-a-command::x', '##[unknown]x', 'plain text'])(
    '%j is not a command',
    line => expect(runnerCommand(line)).toBeUndefined()
  )
})

it('counts separators, format characters and unpaired surrogates as unclean', () => {
  expect(['a\u2028b', 'a\u0085b', 'a\u200bb', 'a\ud800', 'a b'].filter(isClean)).toEqual([])
  expect(isClean('tok_a=b%0A\u{1F511}')).toBe(true)
})

describe('findProblems', () => {
  it('accepts a sound run', () => {
    expect(findProblems(sound(), CONTEXT)).toEqual([])
  })

  it('flags a token on a log line, a line that a lone CR starts, and a stray mask', () => {
    const run = sound()
    run.main.lines.push(`answer ${TOKEN.slice(0, 14)}`, 'ok\r::stop-commands::p', '::add-mask::x')
    expect(findProblems(run, CONTEXT)).toEqual([
      expect.stringMatching(/line 3 shows part of the token/),
      expect.stringMatching(/line 5 is a stop-commands command/),
      expect.stringMatching(/line 6 masks a value nobody sent as a secret/)
    ])
  })

  it('flags a value changed on its way to GITHUB_ENV and an extra entry', () => {
    const run = sound()
    run.main.env = { ...EXPORTED.env, SVC_TUNNEL_USER: 'ab12c\ufffd', INJECTED: '1' }
    expect(findProblems(run, CONTEXT)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/GITHUB_ENV holds/),
        'SVC_TUNNEL_USER is "ab12c\ufffd", sent "ab12c"'
      ])
    )
  })

  it('flags a failure with two errors and half an export, and an issued credential left alive', () => {
    const run = sound()
    run.main = outcome([...MASKS, '::error::one', '::error::two'], {
      failed: true,
      env: { SVC_TUNNEL_TOKEN: TOKEN }
    })
    run.revokes = []
    expect(findProblems(run, CONTEXT)).toEqual([
      'main failed with 2 ::error:: lines',
      'main failed but exported SVC_TUNNEL_TOKEN',
      'the service issued user "ab12c", main rejected the answer, and nobody revoked it'
    ])
  })

  it('flags a throw, and a post that warns on a 2xx revoke', () => {
    const run = sound()
    run.mainThrew = new RangeError('Invalid time value')
    run.main = outcome(MASKS)
    run.post.lines.push('::warning::Could not revoke')
    expect(findProblems(run, CONTEXT)).toEqual([
      expect.stringMatching(/^main threw/),
      'main failed with 0 ::error:: lines',
      expect.stringMatching(/^post warned although revoke-token answered 2xx/)
    ])
  })
})
