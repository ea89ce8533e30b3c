import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { readCliSettings } from '../../src/cli/cli-settings.js'
import type { FlagName } from '../../src/cli/option-names.js'
import { cliOptions } from '../../src/cli/options.js'
import { ExplainedError } from '../../src/core/errors.js'

let dir: string
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cli-settings-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const settings = (flags: Record<string, string> = {}, env: NodeJS.ProcessEnv = {}) =>
  readCliSettings(cliOptions(new Map(Object.entries(flags)) as Map<FlagName, string>, env))

/** The message of the ExplainedError the settings give. */
function refusal(flags: Record<string, string>, env: NodeJS.ProcessEnv = {}): string {
  try {
    settings(flags, env)
  } catch (error) {
    expect(error).toBeInstanceOf(ExplainedError)
    return (error as Error).message
  }
  throw new Error('expected the settings to be refused')
}

const notADirectory = (label: string, verb: string, path: string) =>
  `${label} ${verb} ${path}, which is not an existing directory. Create it first, or choose another.`

describe('readCliSettings: defaults and paths', () => {
  it('defaults to tunnel.env in the working directory, the state file beside it, the temp dir', () => {
    expect(settings()).toEqual({
      envFile: resolve('tunnel.env'),
      stateFile: resolve('.tunnel-credentials.json'),
      requestLog: resolve('requests.har'),
      workDir: tmpdir()
    })
  })

  it('puts the request log beside the variables file, or where --request-log or SVC_REQUEST_LOG says', () => {
    expect(settings({ 'variables-file': join(dir, 'job.env') }).requestLog).toBe(
      join(dir, 'requests.har')
    )
    expect(settings({ 'request-log': join(dir, 'in.har') }).requestLog).toBe(join(dir, 'in.har'))
    expect(settings({}, { SVC_REQUEST_LOG: join(dir, 'env.har') }).requestLog).toBe(
      join(dir, 'env.har')
    )
  })

  it('refuses a request log in a missing folder, at a folder, or at another file of its own', () => {
    expect(refusal({ 'request-log': join(dir, 'gone', 'r.har') })).toContain('--request-log')
    mkdirSync(join(dir, 'folder'))
    expect(refusal({ 'request-log': join(dir, 'folder') })).toContain('--request-log')
    expect(
      refusal({ 'variables-file': join(dir, 'same'), 'request-log': join(dir, 'same') })
    ).toContain('--request-log')
  })

  it('puts the state file beside the env file when only the env file is given', () => {
    expect(settings({ 'variables-file': join(dir, 'job.env') })).toMatchObject({
      envFile: join(dir, 'job.env'),
      stateFile: join(dir, '.tunnel-credentials.json')
    })
  })

  it('resolves relative paths against the working directory, and trims blanks', () => {
    const rel = relative(process.cwd(), dir)
    expect(
      settings({
        'variables-file': ` ${rel}/a.env `,
        'state-file': `${rel}/sub/../s.json`,
        'outputs-file': `${rel}/o.json`,
        'request-log': ` ${rel}/r.har `,
        'work-dir': rel
      })
    ).toEqual({
      envFile: join(dir, 'a.env'),
      stateFile: join(dir, 's.json'),
      outputsFile: join(dir, 'o.json'),
      requestLog: join(dir, 'r.har'),
      workDir: dir
    })
  })

  it('reads every path from its SVC_ variable when no flag is given', () => {
    const env = {
      SVC_VARIABLES_FILE: join(dir, 'v.env'),
      SVC_STATE_FILE: join(dir, 'v.json'),
      SVC_OUTPUTS_FILE: join(dir, 'out.json'),
      SVC_REQUEST_LOG: join(dir, 'v.har'),
      SVC_WORK_DIR: dir,
      SVC_TUNNEL_MAX_MINUTES: '15'
    }
    expect(settings({}, env)).toEqual({
      envFile: join(dir, 'v.env'),
      stateFile: join(dir, 'v.json'),
      outputsFile: join(dir, 'out.json'),
      requestLog: join(dir, 'v.har'),
      workDir: dir,
      tunnelMaxMinutes: 15
    })
    expect(settings({ 'variables-file': join(dir, 'f.env') }, env).envFile).toBe(join(dir, 'f.env'))
    const earlier = { SVC_ENV_FILE: join(dir, 'old.env') }
    expect(settings({}, earlier).envFile).toBe(join(dir, 'old.env'))
  })
})

describe('readCliSettings: missing directories', () => {
  it.each([
    ['variables-file', 'is in', (missing: string) => join(missing, 'tunnel.env')],
    ['state-file', 'is in', (missing: string) => join(missing, 'state.json')],
    ['outputs-file', 'is in', (missing: string) => join(missing, 'out.json')],
    ['work-dir', 'is', (missing: string) => missing]
  ])('names --%s and the directory that is missing', (name, verb, pathIn) => {
    const missing = join(dir, 'missing')
    expect(refusal({ [name]: pathIn(missing) })).toBe(notADirectory(`--${name}`, verb, missing))
  })

  it('names the variable when the path came from it', () => {
    const missing = join(dir, 'missing')
    expect(refusal({}, { SVC_ENV_FILE: join(missing, 'x.env') })).toBe(
      notADirectory('SVC_ENV_FILE', 'is in', missing)
    )
    expect(refusal({}, { SVC_WORK_DIR: missing })).toBe(
      notADirectory('SVC_WORK_DIR', 'is', missing)
    )
  })

  it('refuses a work directory that is a file', () => {
    writeFileSync(join(dir, 'file'), '')
    expect(refusal({ 'work-dir': join(dir, 'file') })).toBe(
      notADirectory('--work-dir', 'is', join(dir, 'file'))
    )
  })

  it('refuses an env file under a path that is a file', () => {
    writeFileSync(join(dir, 'file'), '')
    expect(refusal({ 'variables-file': join(dir, 'file', 'x.env') })).toBe(
      notADirectory('--variables-file', 'is in', join(dir, 'file'))
    )
  })

  it("names the env file's missing directory even when the state file is elsewhere", () => {
    const missing = join(dir, 'gone')
    mkdirSync(missing)
    const env = { SVC_ENV_FILE: join(missing, 'x.env') }
    rmSync(missing, { recursive: true })
    expect(refusal({ 'state-file': join(dir, 's.json') }, env)).toBe(
      notADirectory('SVC_ENV_FILE', 'is in', missing)
    )
  })
})

describe('readCliSettings: one file for two purposes', () => {
  const message = (first: string, second: string, path: string) =>
    `${first} and ${second} both name ${path}. Give each its own file.`

  it('refuses the same file for env and state', () => {
    const path = join(dir, 'same')
    expect(refusal({ 'variables-file': path, 'state-file': path })).toBe(
      message('--variables-file', '--state-file', path)
    )
  })

  it('sees the same file through different spellings', () => {
    const rel = relative(process.cwd(), dir)
    expect(refusal({ 'variables-file': join(dir, 'x'), 'state-file': `${rel}/./sub/../x` })).toBe(
      message('--variables-file', '--state-file', join(dir, 'x'))
    )
  })

  it('refuses the outputs file on the env or state file', () => {
    const env = join(dir, 'tunnel.env')
    expect(refusal({ 'variables-file': env, 'outputs-file': env })).toBe(
      message('--variables-file', '--outputs-file', env)
    )
    const state = join(dir, '.tunnel-credentials.json')
    expect(refusal({ 'variables-file': env, 'outputs-file': state })).toBe(
      message('--state-file', '--outputs-file', state)
    )
  })

  it('names the variables that set them', () => {
    const path = join(dir, 'same')
    expect(refusal({}, { SVC_ENV_FILE: path, SVC_STATE_FILE: path })).toBe(
      message('SVC_ENV_FILE', 'SVC_STATE_FILE', path)
    )
  })

  it('refuses a directory where a file goes', () => {
    expect(refusal({ 'variables-file': dir })).toBe(
      `--variables-file is ${dir}, which is a directory. Name a file, e.g. ${join(dir, 'tunnel.env')}.`
    )
  })
})

describe('readCliSettings: --tunnel-max-minutes', () => {
  it.each([
    ['1', 1],
    ['60', 60],
    ['10080', 10080],
    [' 30 ', 30]
  ])('takes %j', (value, minutes) => {
    expect(settings({ 'tunnel-max-minutes': value }).tunnelMaxMinutes).toBe(minutes)
  })

  it('is absent when not set', () => {
    expect(settings({ 'tunnel-max-minutes': '' })).not.toHaveProperty('tunnelMaxMinutes')
  })

  it.each(['0', '10081', '1.5', '-1', 'ten', '1e3', '99999999999999999999'])(
    'refuses %j, naming the bounds',
    value => {
      expect(refusal({ 'tunnel-max-minutes': value })).toBe(
        `--tunnel-max-minutes is "${value}": expected a whole number from 1 to 10080.`
      )
    }
  )

  it('names SVC_TUNNEL_MAX_MINUTES when the value came from it', () => {
    expect(refusal({}, { SVC_TUNNEL_MAX_MINUTES: '0' })).toBe(
      'SVC_TUNNEL_MAX_MINUTES is "0": expected a whole number from 1 to 10080.'
    )
  })
})

describe('readCliSettings: the text of a path', () => {
  it('refuses a line break in a path, naming the option and where', () => {
    expect(refusal({ 'variables-file': 'a\nb.env' })).toMatch(
      /^--variables-file is ".*": it holds a line break \(U\+000A\) at character 2\. Set it to a single line of plain text\.$/
    )
  })
})

describe('readCliSettings: the shared-credential file', () => {
  it('is shared.env in the working directory with --share create, or where the flag or variable says', () => {
    expect(settings({ share: 'create' }).sharedCredentialFile).toBe(resolve('shared.env'))
    expect(settings({}, { SVC_SHARE: 'Create' }).sharedCredentialFile).toBe(resolve('shared.env'))
    expect(
      settings({ share: 'create', 'shared-credential-file': join(dir, 'handover.env') })
        .sharedCredentialFile
    ).toBe(join(dir, 'handover.env'))
    expect(
      settings({ share: 'create' }, { SVC_SHARED_CREDENTIAL_FILE: join(dir, 'from-env.env') })
        .sharedCredentialFile
    ).toBe(join(dir, 'from-env.env'))
  })

  it.each(['', 'off', 'use', 'revoke'])('is none with --share %j: nothing to write', share => {
    expect(
      settings({ share, 'shared-credential-file': join(dir, 'handover.env') })
    ).not.toHaveProperty('sharedCredentialFile')
  })

  it('refuses it in a missing folder, at a folder, or at the variables file', () => {
    expect(
      refusal({ share: 'create', 'shared-credential-file': join(dir, 'gone', 'shared.env') })
    ).toBe(notADirectory('--shared-credential-file', 'is in', join(dir, 'gone')))
    mkdirSync(join(dir, 'folder'))
    expect(refusal({ share: 'create', 'shared-credential-file': join(dir, 'folder') })).toBe(
      `--shared-credential-file is ${join(dir, 'folder')}, which is a directory. Name a file, e.g. ${join(dir, 'folder', 'shared.env')}.`
    )
    expect(
      refusal({
        share: 'create',
        'variables-file': join(dir, 'same.env'),
        'shared-credential-file': join(dir, 'same.env')
      })
    ).toBe(
      `--variables-file and --shared-credential-file both name ${join(dir, 'same.env')}. Give each its own file.`
    )
  })
})
