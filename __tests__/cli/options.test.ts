import type { FlagName } from '../../src/cli/option-names.js'
import { variableFor } from '../../src/cli/option-names.js'
import { cliOptions } from '../../src/cli/options.js'

const options = (flags: Record<string, string> = {}, env: NodeJS.ProcessEnv = {}) =>
  cliOptions(new Map(Object.entries(flags)) as Map<FlagName, string>, env)

describe('variableFor', () => {
  it.each([
    ['project', 'SVC_PROJECT'],
    ['ttl-minutes', 'SVC_TTL_MINUTES'],
    ['fail-on-revoke-error', 'SVC_FAIL_ON_REVOKE_ERROR'],
    ['variables-file', 'SVC_VARIABLES_FILE'],
    ['tunnel-max-minutes', 'SVC_TUNNEL_MAX_MINUTES'],
    ['tunnel-host-key', 'SVC_TUNNEL_HOST_KEY'],
    ['api-key', 'SVC_API_KEY'],
    ['tunnel-host', 'SVC_INPUT_TUNNEL_HOST'],
    ['tunnel-port', 'SVC_INPUT_TUNNEL_PORT'],
    ['tunnel-user', 'SVC_INPUT_TUNNEL_USER'],
    ['tunnel-token', 'SVC_INPUT_TUNNEL_TOKEN']
  ])('names %s by %s', (name, variable) => {
    expect(variableFor(name)).toBe(variable)
  })
})

describe('cliOptions.read', () => {
  it('takes the flag over its variable', () => {
    const source = options({ project: 'from-flag' }, { SVC_PROJECT: 'from-variable' })
    expect(source.read('project')).toBe('from-flag')
  })

  it('takes an empty flag over its variable', () => {
    expect(options({ 'env-prefix': '' }, { SVC_ENV_PREFIX: 'X_' }).read('env-prefix')).toBe('')
  })

  it('falls back to the SVC_ variable, and to empty when neither is set', () => {
    const source = options({}, { SVC_PROJECT: 'web', SVC_TTL_MINUTES: '30', SVC_WORK_DIR: '/w' })
    expect(source.read('project')).toBe('web')
    expect(source.read('ttl-minutes')).toBe('30')
    expect(source.read('work-dir')).toBe('/w')
    expect(source.read('environment')).toBe('')
  })

  it('reads the tunnel inputs from SVC_INPUT_TUNNEL_*, never the variables provision writes', () => {
    const env = {
      SVC_TUNNEL_HOST: 'written.example',
      SVC_TUNNEL_PORT: '2222',
      SVC_TUNNEL_USER: 'written-user',
      SVC_TUNNEL_TOKEN: 'written-token'
    }
    const source = options({}, env)
    for (const name of ['tunnel-host', 'tunnel-port', 'tunnel-user', 'tunnel-token']) {
      expect(source.read(name)).toBe('')
    }
    const inputs = options(
      {},
      {
        ...env,
        SVC_INPUT_TUNNEL_HOST: 'in.example',
        SVC_INPUT_TUNNEL_PORT: '22',
        SVC_INPUT_TUNNEL_USER: 'in-user',
        SVC_INPUT_TUNNEL_TOKEN: 'in-token'
      }
    )
    expect(inputs.read('tunnel-host')).toBe('in.example')
    expect(inputs.read('tunnel-port')).toBe('22')
    expect(inputs.read('tunnel-user')).toBe('in-user')
    expect(inputs.read('tunnel-token')).toBe('in-token')
  })

  it('reads secrets from their variables only, even when a flag of that name slipped in', () => {
    const flags = { 'api-key': 'flag-key', 'tunnel-token': 'flag-token' }
    const source = options(flags, { SVC_API_KEY: 'env-key', SVC_INPUT_TUNNEL_TOKEN: 'env-token' })
    expect(source.read('api-key')).toBe('env-key')
    expect(source.read('tunnel-token')).toBe('env-token')
    expect(options(flags, {}).read('api-key')).toBe('')
  })

  it('reads --variables-file from SVC_ENV_FILE, its earlier variable, when its own is not set', () => {
    expect(options({}, { SVC_ENV_FILE: 'old.env' }).read('variables-file')).toBe('old.env')
    const both = { SVC_ENV_FILE: 'old.env', SVC_VARIABLES_FILE: 'new.env' }
    expect(options({}, both).read('variables-file')).toBe('new.env')
    expect(options({ 'variables-file': 'flag.env' }, both).read('variables-file')).toBe('flag.env')
  })

  it('reads an action input the CLI has no option for as empty, so its default applies', () => {
    const source = options({}, { SVC_EXPORT_ENV: 'false' })
    expect(source.read('export-env')).toBe('')
  })
})

describe('cliOptions.label', () => {
  it('names a flag as typed when it was given', () => {
    expect(options({ project: 'web' }, { SVC_PROJECT: 'x' }).label('project')).toBe('--project')
  })

  it('names the variable when the value came from it, even an empty one', () => {
    expect(options({}, { SVC_PROJECT: 'web' }).label('project')).toBe('SVC_PROJECT')
    expect(options({}, { SVC_PROJECT: '' }).label('project')).toBe('SVC_PROJECT')
    expect(options({}, { SVC_INPUT_TUNNEL_PORT: 'x' }).label('tunnel-port')).toBe(
      'SVC_INPUT_TUNNEL_PORT'
    )
  })

  it('names SVC_ENV_FILE when --variables-file came from it', () => {
    expect(options({}, { SVC_ENV_FILE: 'a' }).label('variables-file')).toBe('SVC_ENV_FILE')
    const both = { SVC_ENV_FILE: 'a', SVC_VARIABLES_FILE: 'b' }
    expect(options({}, both).label('variables-file')).toBe('SVC_VARIABLES_FILE')
    expect(options().label('variables-file')).toBe('--variables-file')
  })

  it('names the flag when neither is set: the default is what the user would override', () => {
    expect(options().label('project')).toBe('--project')
    expect(options({}, { SVC_TUNNEL_PORT: '2222' }).label('tunnel-port')).toBe('--tunnel-port')
  })

  it('names a secret by its variable, wherever it was set', () => {
    expect(options().label('api-key')).toBe('SVC_API_KEY')
    expect(options({}, { SVC_API_KEY: 'k' }).label('api-key')).toBe('SVC_API_KEY')
    expect(options({ 'api-key': 'k' }).label('api-key')).toBe('SVC_API_KEY')
    expect(options().label('tunnel-token')).toBe('SVC_INPUT_TUNNEL_TOKEN')
  })

  it('names an input the CLI does not take by its input name', () => {
    expect(options().label('export-env')).toBe('export-env')
  })
})
