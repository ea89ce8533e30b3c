/**
 * The options' table (src/core/options/) is the one home of the options' facts: the CLI takes its
 * flags and secrets from it, and `--help` and the GitLab component are held to it here (action.yml
 * and the README in their own tests).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseAllDocuments } from 'yaml'
import { HELP_TEXT } from '../src/cli/help.js'
import { parseArguments, UsageError } from '../src/cli/arguments.js'
import { checkedOptions } from '../src/core/settings/input-text.js'
import { optionsFrom } from './helpers/options.js'
import { cliOptions } from '../src/cli/options.js'
import { isFlagName, isSecretOption, variableFor } from '../src/cli/option-names.js'
import {
  cliVariable,
  OPTIONS,
  optionsOf,
  SECRET_VARIABLES
} from '../src/core/options/option-facts.js'
import { OUTPUTS, SECRET_OUTPUT_NAMES } from '../src/core/options/output-facts.js'
import { REPLAY_FLAGS } from '../src/cli/replay-arguments.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const component = parseAllDocuments(
  readFileSync(join(root, 'templates', 'tunnel-credentials.yml'), 'utf8')
)[0].toJS() as { spec: { inputs: Record<string, { default?: unknown }> } }
/** The component's own inputs, which no other host has: the job's shape and the package. */
const COMPONENT_OWN = [
  'job-name',
  'stage',
  'image',
  'script',
  'package-url',
  'package-sha256',
  'timeout',
  'script-timeout'
]

describe("the options' table", () => {
  it('names each option and output once, with a host and a one-line description', () => {
    const names = OPTIONS.map(option => option.name)
    expect(new Set(names).size).toBe(names.length)
    expect(new Set(OUTPUTS.map(o => o.name)).size).toBe(OUTPUTS.length)
    for (const option of OPTIONS) {
      expect([option.name, option.hosts.length > 0]).toEqual([option.name, true])
      expect([option.name, option.description]).toEqual([
        option.name,
        expect.stringMatching(/^\S[^\n]*$/)
      ])
    }
  })

  it('declares the options of the request log, the gate and the URL proof with their defaults', () => {
    const defaults = Object.fromEntries(OPTIONS.map(option => [option.name, option.default]))
    expect(defaults).toMatchObject({
      'log-requests': 'true',
      'log-bodies': '0',
      'log-headers': 'redacted',
      protect: 'false',
      'prove-url': 'true',
      'request-log': 'requests.har'
    })
    for (const name of ['log-requests', 'log-bodies', 'log-headers', 'protect', 'prove-url']) {
      expect([
        name,
        [...optionsOf('action'), ...optionsOf('cli'), ...optionsOf('component')].filter(
          o => o.name === name
        ).length
      ]).toEqual([name, 3])
    }
    expect(optionsOf('cli').map(o => o.name)).toContain('request-log')
    expect(optionsOf('action').map(o => o.name)).not.toContain('request-log')
  })

  it('marks the API key, the tunnel token and the outputs that hold a secret as secret', () => {
    expect(
      OPTIONS.filter(o => o.secret)
        .map(o => o.name)
        .sort()
    ).toEqual(['api-key', 'tunnel-token'])
    expect([...SECRET_OUTPUT_NAMES].sort()).toEqual(
      ['protect-header', 'protect-secret', 'protect-urls', 'protect-webhook-urls', 'token'].sort()
    )
  })
})

describe('the lists, by the table', () => {
  it('marks expose and tunnel-host-key as lists, and only a list takes more than one line', () => {
    expect(OPTIONS.filter(o => o.multiLine).map(o => o.name)).toEqual(['expose', 'tunnel-host-key'])
    for (const option of OPTIONS) {
      const read = () => checkedOptions(optionsFrom({ [option.name]: 'a\nb' })).read(option.name)
      if (option.multiLine) expect([option.name, read()]).toEqual([option.name, 'a\nb'])
      else expect(read).toThrow(/a line break \(U\+000A\)/)
    }
  })
})

describe('the CLI, by the table', () => {
  it('states the variables that are not the plain name, the earlier ones, and the retired flag', () => {
    const renamed = OPTIONS.filter(o => o.variable !== undefined).map(o => [o.name, o.variable])
    expect(renamed).toEqual([
      ['tunnel-host', 'SVC_INPUT_TUNNEL_HOST'],
      ['tunnel-port', 'SVC_INPUT_TUNNEL_PORT'],
      ['tunnel-token', 'SVC_INPUT_TUNNEL_TOKEN'],
      ['tunnel-user', 'SVC_INPUT_TUNNEL_USER']
    ])
    expect(OPTIONS.filter(o => o.earlierVariable).map(o => [o.name, o.earlierVariable])).toEqual([
      ['variables-file', 'SVC_ENV_FILE']
    ])
    expect(OPTIONS.filter(o => o.retiredFlag).map(o => [o.name, o.retiredFlag])).toEqual([
      ['variables-file', 'env-file']
    ])
    expect(SECRET_VARIABLES).toEqual(['SVC_API_KEY', 'SVC_INPUT_TUNNEL_TOKEN'])
  })

  it("reads each option from the table's variable alone, then from its earlier one", () => {
    for (const option of optionsOf('cli')) {
      const plain = `SVC_${option.name.toUpperCase().replace(/-/g, '_')}`
      const own = cliOptions(new Map(), { [cliVariable(option.name)]: 'own' }).read(option.name)
      expect([option.name, own]).toEqual([option.name, 'own'])
      if (option.variable !== undefined) {
        const read = cliOptions(new Map(), { [plain]: 'written' }).read(option.name)
        expect([option.name, read]).toEqual([option.name, ''])
      }
      if (option.earlierVariable !== undefined) {
        const earlier = cliOptions(new Map(), { [option.earlierVariable]: 'old' })
        expect([earlier.read(option.name), earlier.label(option.name)]).toEqual([
          'old',
          option.earlierVariable
        ])
      }
    }
  })

  it('refuses each retired flag, naming the option that took its place', () => {
    for (const option of OPTIONS.filter(o => o.retiredFlag !== undefined)) {
      const parse = () => parseArguments(['provision', `--${option.retiredFlag}`, 'x.env'])
      expect(parse).toThrow(UsageError)
      expect(parse).toThrow(`Use --${option.name}, or the variable ${cliVariable(option.name)}.`)
    }
  })

  it("lists in --help each secret's variable with what it holds, and the renamed variables", () => {
    for (const option of optionsOf('cli').filter(o => o.secret)) {
      expect(option.secretHelp).toMatch(/^the /)
      expect(HELP_TEXT).toContain(`  ${cliVariable(option.name).padEnd(25)}${option.secretHelp}\n`)
    }
    expect(HELP_TEXT).toContain(
      '--tunnel-host, --tunnel-port and --tunnel-user read SVC_INPUT_TUNNEL_HOST, _PORT and _USER,\n'
    )
  })

  it('takes a flag for every CLI option that is no secret, and none for a secret', () => {
    for (const option of optionsOf('cli')) {
      expect([option.name, isFlagName(option.name)]).toEqual([option.name, !option.secret])
      expect([option.name, isSecretOption(option.name)]).toEqual([option.name, option.secret])
    }
    expect(isFlagName('export-env')).toBe(false)
  })

  it('parses every flag of the table, bare switches as true', () => {
    for (const option of optionsOf('cli').filter(o => !o.secret)) {
      const parsed = parseArguments([
        'provision',
        `--${option.name}`,
        ...(option.switch ? [] : ['1'])
      ])
      expect(parsed.type === 'command' && parsed.flags.get(option.name)).toBe(
        option.switch ? 'true' : '1'
      )
    }
  })

  it('reads the new options from their flags and SVC_ variables', () => {
    const options = cliOptions(new Map([['protect', 'true']]), {
      SVC_LOG_BODIES: '512',
      SVC_REQUEST_LOG: 'x.har'
    })
    expect([
      options.read('protect'),
      options.read('log-bodies'),
      options.read('request-log')
    ]).toEqual(['true', '512', 'x.har'])
    expect(options.read('prove-url')).toBe('')
  })

  it('refuses to read an option no host has, instead of reading it as empty', () => {
    expect(() => cliOptions(new Map(), {}).read('no-such-option')).toThrow()
    expect(cliOptions(new Map(), {}).read('export-env')).toBe('')
  })

  it("lists in --help every flag and the secrets' variables, and no flag the table lacks", () => {
    for (const option of optionsOf('cli')) {
      const shown = option.secret ? variableFor(option.name) : `--${option.name} ${option.value}`
      expect([option.name, HELP_TEXT.includes(shown)]).toEqual([option.name, true])
    }
    const flags = new Set([...HELP_TEXT.matchAll(/--([a-z][a-z-]+)/g)].map(([, name]) => name))
    const known = new Set([
      ...OPTIONS.map(o => o.name),
      ...REPLAY_FLAGS,
      'help',
      'version',
      'env-file'
    ])
    expect([...flags].filter(name => !known.has(name))).toEqual([])
  })
})

describe('the GitLab component, by the table', () => {
  const inputs = component.spec.inputs
  it('has exactly the options the table gives it, besides its own', () => {
    expect(
      Object.keys(inputs)
        .filter(name => !COMPONENT_OWN.includes(name))
        .sort()
    ).toEqual(
      optionsOf('component')
        .map(option => option.name)
        .sort()
    )
  })

  it("unsets the table's secret variables before the job's script, and passes only those on", () => {
    const text = readFileSync(join(root, 'templates', 'tunnel-credentials.yml'), 'utf8')
    const unset = [...text.matchAll(/^ +- unset (.+)$/gm)].map(([, names]) => names.split(' '))
    expect(unset).toEqual([[...SECRET_VARIABLES]])
    const kept = [...text.matchAll(/^ +(SVC_[A-Z_| ]+) \| HOME\) ;;$/gm)].map(([, names]) =>
      names.split(' | ')
    )
    expect(kept).toEqual([[...SECRET_VARIABLES]])
  })

  it("takes the table's default for each", () => {
    for (const option of optionsOf('component')) {
      expect([option.name, inputs[option.name].default]).toEqual([option.name, option.default])
    }
  })
})
