import { parseArguments, UsageError, type ParsedArguments } from '../../src/cli/arguments.js'

/** The parsed command, with its flags as a plain object for readable expectations. */
function parsed(argv: string[]) {
  const result = parseArguments(argv)
  if (result.type !== 'command') throw new Error(`expected a command, got ${result.type}`)
  return { ...result, flags: Object.fromEntries(result.flags) }
}

/** The usage error's message; fails the test when the arguments parse. */
function usageError(argv: string[]): string {
  let result: ParsedArguments
  try {
    result = parseArguments(argv)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return (error as Error).message
  }
  throw new Error(`expected a usage error, parsed ${JSON.stringify(result)}`)
}

const SECRET = 'sk_c1cdc1cdc1cdc1cdc1cd'

describe('parseArguments: commands', () => {
  it.each(['provision', 'revoke'] as const)('takes %s with no flags', command => {
    expect(parsed([command])).toEqual({ type: 'command', command, flags: {}, commandLine: [] })
  })

  it('takes run with the command after "--", its arguments untouched', () => {
    const result = parsed(['run', '--project', 'web', '--', './deploy.sh', '--project', 'x', '--'])
    expect(result.command).toBe('run')
    expect(result.flags).toEqual({ project: 'web' })
    expect(result.commandLine).toEqual(['./deploy.sh', '--project', 'x', '--'])
  })

  it('takes flags before the command as well as after it', () => {
    expect(parsed(['--project', 'web', 'provision']).flags).toEqual({ project: 'web' })
  })

  it.each([['--help'], ['-h'], ['provision', '--help'], ['--nope', '-h'], ['run', '-h', '--']])(
    'answers help for %j, before any usage error',
    (...argv) => {
      expect(parseArguments(argv)).toEqual({ type: 'help' })
    }
  )

  it.each([['--version'], ['-V'], ['revoke', '--version']])('answers version for %j', (...argv) => {
    expect(parseArguments(argv)).toEqual({ type: 'version' })
  })

  it('leaves --help after "--" to the command run starts', () => {
    expect(parsed(['run', '--', 'make', '--help']).commandLine).toEqual(['make', '--help'])
    expect(parsed(['run', '--', 'tool', '-V']).commandLine).toEqual(['tool', '-V'])
  })
})

describe('parseArguments: flag values', () => {
  it('reads --flag value and --flag=value alike', () => {
    expect(parsed(['provision', '--project', 'web', '--environment=staging']).flags).toEqual({
      project: 'web',
      environment: 'staging'
    })
  })

  it('keeps everything after the first "=" of --flag=value, an empty value too', () => {
    expect(parsed(['provision', '--expose=web=3000 api=4000', '--env-prefix=']).flags).toEqual({
      expose: 'web=3000 api=4000',
      'env-prefix': ''
    })
  })

  it('takes a value that starts with one dash, and an empty value after a space', () => {
    expect(parsed(['provision', '--tunnel-port', '-1', '--env-prefix', '']).flags).toEqual({
      'tunnel-port': '-1',
      'env-prefix': ''
    })
  })

  it.each([
    [['provision', '--revoke'], 'true'],
    [['provision', '--revoke', 'true'], 'true'],
    [['provision', '--revoke', 'false'], 'false'],
    [['provision', '--revoke=false'], 'false'],
    [['provision', '--revoke', 'FALSE'], 'FALSE'],
    [['--revoke', 'True', 'provision'], 'True'],
    [['provision', '--revoke=maybe'], 'maybe']
  ])('reads the switch in %j as %s', (argv, value) => {
    expect(parsed(argv).flags).toEqual({ revoke: value })
  })

  it('reads a bare switch as true when a flag or the command follows it', () => {
    expect(
      parsed(['--fail-on-revoke-error', 'revoke', '--revoke', '--project', 'web']).flags
    ).toEqual({ 'fail-on-revoke-error': 'true', revoke: 'true', project: 'web' })
    expect(parsed(['run', '--revoke', '--', 'true']).flags).toEqual({ revoke: 'true' })
    expect(parsed(['--protect', 'provision', '--prove-url', 'FALSE']).flags).toEqual({
      protect: 'true',
      'prove-url': 'FALSE'
    })
  })

  it('reads every CLI option', () => {
    const argv = ['provision', '--variables-file', 'a.env', '--state-file=s.json', '--outputs-file']
    argv.push('o.json', '--work-dir', '/w', '--tunnel-max-minutes', '30')
    expect(parsed(argv).flags).toEqual({
      'variables-file': 'a.env',
      'state-file': 's.json',
      'outputs-file': 'o.json',
      'work-dir': '/w',
      'tunnel-max-minutes': '30'
    })
  })
})

describe('parseArguments: usage errors', () => {
  it.each([
    [[], 'Name a command: provision, revoke, run or replay.'],
    [['--project', 'web'], 'Name a command: provision, revoke, run or replay.'],
    [['provison'], '"provison" is not a command: use provision, revoke, run or replay.'],
    [['provision', 'revoke'], '"revoke" is not expected after "provision".'],
    [['run'], 'run needs the command to start after "--", e.g. run -- ./deploy.sh'],
    [['run', '--'], 'run needs the command to start after "--", e.g. run -- ./deploy.sh'],
    [
      ['run', './deploy.sh'],
      'An argument is not expected after "run": put the command after "--", e.g. run -- ./deploy.sh'
    ],
    // A word after a switch that is not true or false: the switch and its values are named,
    // the word (perhaps a secret typed in the wrong place) is not repeated.
    [
      ['provision', '--revoke', 'hunter2'],
      '--revoke takes true or false: write --revoke alone or --revoke true to turn it on, --revoke false to turn it off.'
    ],
    [
      ['provision', '--protect', 'yes'],
      '--protect takes true or false: write --protect alone or --protect true to turn it on, --protect false to turn it off.'
    ],
    [
      ['--protect', 'yes', 'provision'],
      '--protect takes true or false: write --protect alone or --protect true to turn it on, --protect false to turn it off.'
    ],
    [
      ['run', '--prove-url', 'no', '--', 'make'],
      '--prove-url takes true or false: write --prove-url alone or --prove-url true to turn it on, --prove-url false to turn it off.'
    ],
    [['deploy'], 'An argument is not a command: use provision, revoke, run or replay.'],
    [['revok'], '"revok" is not a command: use provision, revoke, run or replay.'],
    [['provision', '--', 'make'], 'provision starts no command; only run takes one after "--".'],
    [['revoke', '--'], 'revoke starts no command; only run takes one after "--".'],
    [['provision', '--project'], '--project needs a value.'],
    [['provision', '--project', '--environment', 'x'], '--project needs a value.'],
    [['run', '--project', '--', 'make'], '--project needs a value.'],
    [['provision', '--project', 'a', '--project=b'], '--project is given twice.'],
    [['provision', '--revoke', '--revoke=false'], '--revoke is given twice.'],
    [['provision', '--nope'], '"--nope" is not an option.'],
    [['provision', '-x'], '"-x" is not an option.'],
    [['provision', '-project', 'web'], '"-project" is not an option.'],
    [['provision', '--Project', 'web'], '"--Project" is not an option.']
  ])('refuses %j: %s', (argv, message) => {
    expect(usageError(argv)).toBe(message)
  })

  it('refuses --api-key, with or without a value, naming the variable and never the value', () => {
    for (const argv of [
      ['provision', `--api-key=${SECRET}`],
      ['provision', '--api-key', SECRET],
      [`--api-key=${SECRET}`, 'provision']
    ]) {
      const message = usageError(argv)
      expect(message).toBe(
        '--api-key is refused: a secret on the command line is visible to every process on the machine and kept in shell history. Set the variable SVC_API_KEY instead.'
      )
      expect(message).not.toContain(SECRET)
    }
  })

  it('refuses --tunnel-token, naming SVC_INPUT_TUNNEL_TOKEN and never the value', () => {
    const message = usageError([
      'provision',
      '--credential',
      'existing',
      `--tunnel-token=${SECRET}`
    ])
    expect(message).toContain('--tunnel-token is refused')
    expect(message).toContain('Set the variable SVC_INPUT_TUNNEL_TOKEN instead.')
    expect(message).not.toContain(SECRET)
  })

  it('never echoes the value of an unknown flag, nor a stray word that is not a plain name', () => {
    for (const argv of [
      ['provision', `--apikey=${SECRET}`],
      ['provision', '--apikey', SECRET],
      ['provision', `--${SECRET}`],
      ['provision', SECRET],
      [SECRET],
      ['provision', '--token=hunter2'],
      ['provision', 'a b'],
      ['provision', 'x'.repeat(41)]
    ]) {
      const message = usageError(argv)
      for (const word of [SECRET, 'hunter2', 'a b', 'x'.repeat(41)]) {
        expect(message).not.toContain(word)
      }
    }
    expect(usageError(['provision', '--token=hunter2'])).toBe('"--token" is not an option.')
    expect(usageError(['provision', SECRET])).toBe('An argument is not expected after "provision".')
    expect(usageError([SECRET])).toBe(
      'An argument is not a command: use provision, revoke, run or replay.'
    )
    expect(usageError(['provision', `--${SECRET}`])).toBe('An argument is not an option.')
  })

  it('refuses --env-file, which Node reads itself, and names --variables-file instead', () => {
    for (const argv of [
      ['provision', '--env-file', 'new.env'],
      ['revoke', '--env-file=new.env'],
      ['run', '--env-file', 'x.env', '--', 'true']
    ]) {
      expect(() => parseArguments(argv)).toThrow(UsageError)
      expect(usageError(argv)).toContain('--variables-file')
    }
  })

  it('checks flags in order: a refused secret before a later unknown flag', () => {
    expect(usageError(['provision', '--api-key=x', '--nope'])).toMatch(/^--api-key is refused/)
    expect(usageError(['provision', '--nope', '--api-key=x'])).toMatch(/^"--nope" is not/)
  })
})
