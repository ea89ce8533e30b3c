/**
 * templates/tunnel-credentials.yml is a GitLab CI/CD component: a `spec: inputs:` header, `---`,
 * then the job. GitLab refuses a component that uses an input it does not declare; one declared
 * and never used is a knob that does nothing. Both are checked here without GitLab.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, parseAllDocuments } from 'yaml'
import { optionDefault } from '../../src/core/options/option-facts.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const text = readFileSync(join(root, 'templates', 'tunnel-credentials.yml'), 'utf8')
const documents = parseAllDocuments(text)

type Input = {
  description?: string
  default?: unknown
  type?: string
  options?: unknown[]
  regex?: string
}
const header = documents[0]?.toJS() as { spec: { inputs: Record<string, Input> } }
const inputs = header?.spec?.inputs ?? {}
const body = text.slice(text.indexOf('\n---\n') + 5)
const used = new Set([...body.matchAll(/\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g)].map(m => m[1]))

const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string; description?: string }>
}

describe('the GitLab component', () => {
  it('is two YAML documents without errors: the spec header and the jobs', () => {
    expect(documents.map(d => d.errors)).toEqual([[], []])
    expect(Object.keys(header)).toEqual(['spec'])
    expect(Object.keys(header.spec)).toEqual(['inputs'])
  })

  it('declares every input it uses, and uses every input it declares', () => {
    expect([...used].sort()).toEqual(Object.keys(inputs).sort())
  })

  it('uses inputs only in the jobs, never in the header', () => {
    expect(documents[0].toString()).not.toContain('$[[')
  })

  it('describes every input, with a type GitLab knows', () => {
    for (const [name, input] of Object.entries(inputs)) {
      expect([name, typeof input.description]).toEqual([name, 'string'])
      expect(['string', 'array', 'number', 'boolean']).toContain(input.type ?? 'string')
    }
  })

  // Issue 26, item 10: the component has no outputs, so its script reads the gate's secret from
  // the variable, and the input that takes the script says so.
  it("names, in the script's description, every variable the script gets, the gate's secret included", () => {
    for (const name of ['TOKEN', 'USER', 'HOST', 'PORT', 'URL', 'GATE_SECRET']) {
      expect(inputs.script.description).toContain(`SVC_TUNNEL_${name}`)
    }
    expect(inputs.script.description).toContain('curl -u "tunnel:$SVC_TUNNEL_GATE_SECRET"')
  })

  // Issue 28: a setup or final job of share may have no commands of its own.
  it('requires the pinned package: everything else has a default, the script none', () => {
    const required = Object.entries(inputs).filter(([, input]) => input.default === undefined)
    expect(required.map(([name]) => name)).toEqual(['package-url', 'package-sha256'])
    expect(inputs.script).toMatchObject({ type: 'array', default: [] })
  })

  it("takes the action's defaults for the inputs the two share", () => {
    for (const name of [
      'credential',
      'url-template',
      'environment',
      'ttl-minutes',
      'expose',
      'share'
    ]) {
      expect([name, inputs[name].default]).toEqual([name, action.inputs[name].default ?? ''])
    }
  })

  it('asks for a whole number of minutes, and offers the credential kinds the action has', () => {
    const ttl = new RegExp(inputs['ttl-minutes'].regex ?? '')
    expect(['', '1', '30', '600'].filter(v => ttl.test(v))).toHaveLength(4)
    expect(['0', '1h', '-5', '1.5'].filter(v => ttl.test(v))).toEqual([])
    const kinds = [...action.inputs.credential.description!.matchAll(/`(\w[\w-]*)` \(/g)]
    expect(inputs.credential.options).toEqual(kinds.map(m => m[1]))
  })

  // GitLab reads YAML 1.1, where a bare off is the boolean false: the mode must stay a string.
  it('offers the share modes, off by default, as strings even to a YAML 1.1 reader', () => {
    const yaml11 = parseAllDocuments(text, { version: '1.1' })[0].toJS() as typeof header
    for (const read of [inputs, yaml11.spec.inputs]) {
      expect(read.share).toMatchObject({
        default: 'off',
        options: ['off', 'create', 'use', 'revoke']
      })
    }
  })

  describe('its one job', () => {
    const jobs = documents[1].toJS() as Record<string, Record<string, unknown>>
    const job = Object.values(jobs)[0]
    const script = job.script as string[]
    const afterScript = job.after_script as string[]
    const lines = [...script, ...afterScript]

    it('is named by job-name, and has no API key input', () => {
      expect(Object.keys(jobs).filter(name => !name.startsWith('.'))).toEqual([
        '$[[ inputs.job-name ]]'
      ])
      expect(Object.keys(inputs).filter(name => /key$|token|secret/i.test(name))).toEqual([
        'tunnel-host-key'
      ])
    })

    it("provisions in script, so that a job of its name with a before_script keeps it, and the user's script comes last", () => {
      expect(job.before_script).toBeUndefined()
      const provision = script.findIndex(line => / provision /.test(line))
      expect(provision).toBeGreaterThan(-1)
      expect(script.slice(provision + 1)).toEqual([
        "if [ '$[[ inputs.share ]]' != revoke ]; then set -a; . ./tunnel.env; set +a; fi",
        'unset SVC_API_KEY SVC_INPUT_TUNNEL_TOKEN',
        '$[[ inputs.script ]]'
      ])
    })

    it('runs provision and revoke from a folder of its own, with a fixed PATH and an allow-listed environment, never npx', () => {
      const runs = lines.flatMap(line => [
        ...line.matchAll(/(\S+) node ("[^"]+") (provision|revoke)/g)
      ])
      expect(runs.map(([, through, file, command]) => [through, file, command])).toEqual([
        ['tunnel_credentials_run', '"$TUNNEL_CREDENTIALS/dist/cli/index.cjs"', 'revoke'],
        ['tunnel_credentials_run', '"$TUNNEL_CREDENTIALS/dist/cli/index.cjs"', 'provision'],
        ['tunnel_credentials_run', '"$tc_own/dist/cli/index.cjs"', 'revoke']
      ])
      expect(lines.join('\n')).not.toMatch(/\bnpx\b|\bnpm\b|(^|\s)tunnel-credentials\s/)
      // The same launcher first in both shells; a folder no other job can make in advance.
      expect(afterScript[0]).toBe(script[0])
      expect(script[0]).toMatch(/^tunnel_credentials_run\(\) \(/)
      expect(script[1]).toBe(
        'TUNNEL_CREDENTIALS=$(tunnel_credentials_run mktemp -d /tmp/tunnel-credentials-XXXXXX)'
      )
      expect(lines.join('\n')).not.toContain('tunnel-credentials-$CI_JOB_ID')
      const check = script.findIndex(line => line.includes('sha256sum -c'))
      const unpack = script.findIndex(line => line.startsWith('tunnel_credentials_run tar '))
      expect(check).toBeGreaterThan(-1)
      expect(check).toBeLessThan(unpack)
    })

    describe.each(['bash', 'dash'])('its launcher, in %s', shell => {
      /** What a command started through tunnel_credentials_run gets, from a job shell's `env`. */
      const launched = (env: Record<string, string>, before = '') => {
        const ran = spawnSync(
          shell,
          ['-ec', `${script[0]}\n${before}\ntunnel_credentials_run env`],
          { env, encoding: 'utf8' }
        )
        return { code: ran.status, env: ran.stdout.split('\n').filter(Boolean).sort() }
      }

      it('passes on the allow-list alone, with a fixed PATH', () => {
        const job = {
          PATH: `/builds/acme/web-shop/bin:/usr/bin:/bin`,
          HOME: '/home/runner',
          SVC_API_KEY: 'sk_key',
          // Issue 28: the sealed credential a setup job's dotenv report hands on.
          SVC_SHARED_CREDENTIAL: 'ptc1.sealed',
          CI_NODE_INDEX: '2',
          CI_JOB_ID: '42',
          https_proxy: 'http://proxy.example:3128',
          NODE_OPTIONS: '--import=data:text/javascript,console.log(1)',
          NODE_PATH: '/builds/acme/web-shop',
          NODE_EXTRA_CA_CERTS: '/builds/acme/web-shop/ca.pem',
          NODE_TLS_REJECT_UNAUTHORIZED: '0',
          OPENSSL_CONF: '/builds/acme/web-shop/openssl.cnf',
          SVC_BASE_URL: 'https://elsewhere.example',
          // A value that reads as more variables, line by line.
          NOTES: 'a\nexport NODE_OPTIONS=--require=/x\ndeclare -x HOME=/tmp'
        }
        expect(launched(job)).toEqual({
          code: 0,
          env: [
            'CI_JOB_ID=42',
            'HOME=/home/runner',
            'PATH=/usr/local/bin:/usr/bin:/bin',
            'SVC_API_KEY=sk_key',
            'SVC_SHARED_CREDENTIAL=ptc1.sealed',
            'https_proxy=http://proxy.example:3128'
          ]
        })
      })

      it('starts nothing when a variable cannot be removed', () => {
        const ran = launched(
          { PATH: '/usr/bin:/bin', NODE_OPTIONS: '--import=data:,' },
          'readonly NODE_OPTIONS'
        )
        expect(ran.code).not.toBe(0)
        expect(ran.env.filter(line => line.startsWith('NODE_OPTIONS='))).toEqual([])
      })
    })

    // Issue 28: the three jobs of a shared credential. share reaches the script as every input
    // does; each mode adds its own keys through extends, from the component's hidden jobs.
    describe('with share', () => {
      const modes = inputs.share.options as string[]
      const provisionLine = script.find(line => / provision /.test(line)) ?? ''

      it("gains each mode's keys through extends: create the dotenv report, revoke when: always", () => {
        expect(job.extends).toEqual(['.tunnel-credentials-share-$[[ inputs.share ]]'])
        const hidden = Object.fromEntries(
          Object.entries(jobs).filter(([name]) => name.startsWith('.'))
        )
        expect(hidden).toEqual(
          Object.fromEntries(
            modes.map(mode => [
              `.tunnel-credentials-share-${mode}`,
              {
                off: {},
                use: {},
                create: { artifacts: { when: 'always', reports: { dotenv: 'shared.env' } } },
                revoke: { when: 'always' }
              }[mode]
            ])
          )
        )
      })

      it("reports as dotenv the file the CLI's provision --share create writes by default", () => {
        const create = jobs['.tunnel-credentials-share-create'] as {
          artifacts: { reports: { dotenv: string } }
        }
        expect(create.artifacts.reports.dotenv).toBe(optionDefault('shared-credential-file'))
        expect(provisionLine).not.toContain('--shared-credential-file')
      })

      it('provisions with the mode, or in a final job revokes the shared credential instead', () => {
        expect(provisionLine).toContain("provision --share '$[[ inputs.share ]]' ")
        expect(provisionLine).toMatch(
          /^if \[ '\$\[\[ inputs\.share \]\]' = revoke \]; then tunnel_credentials_run node \S+ revoke --share revoke --base-url '\$\[\[ inputs\.base-url \]\]' --credential '\$\[\[ inputs\.credential \]\]' --project '\$\[\[ inputs\.project \]\]' --ca-file '\$\[\[ inputs\.ca-file \]\]'; else tunnel_credentials_run node \S+ provision /
        )
        expect(provisionLine).toMatch(/ --env-prefix SVC; fi$/)
        // The sealed credential, not a secret, reaches the CLI through the launcher.
        expect(script[0]).toMatch(/^ +SVC_SHARED_CREDENTIAL\) ;;$/m)
      })

      /** The {index} step as GitLab writes it with this expose, run in a shell; its result. */
      const indexStep = script.find(line => line.startsWith('tc_rest=')) ?? ''
      const expand = (shell: string, expose: string, index: string | undefined) => {
        const ran = spawnSync(
          shell,
          ['-ec', `${indexStep.replace('$[[ inputs.expose ]]', expose)}\nprintf '%s' "$tc_expose"`],
          {
            // A HOME without files: bash started from a pipe may read ~/.bashrc, not the job's.
            env: {
              PATH: '/usr/bin:/bin',
              HOME: '/nonexistent',
              ...(index !== undefined && { CI_NODE_INDEX: index })
            },
            encoding: 'utf8'
          }
        )
        return { code: ran.status, expose: ran.stdout, error: ran.stderr.trim() }
      }

      it('hands provision the expose the step made, in double quotes', () => {
        expect(indexStep).toMatch(/^tc_rest='\$\[\[ inputs\.expose \]\]'\n/)
        expect(provisionLine).toContain(' --expose "$tc_expose" ')
        expect(script.indexOf(indexStep)).toBe(script.indexOf(provisionLine) - 1)
      })

      describe.each(['bash', 'dash'])('replaces {index} with CI_NODE_INDEX, in %s', shell => {
        it('everywhere in expose, and leaves an expose without it as it is', () => {
          expect(expand(shell, 'web-{index}=127.0.0.{index}:3000,api=8080', '3')).toEqual({
            code: 0,
            expose: 'web-3=127.0.0.3:3000,api=8080',
            error: ''
          })
          expect(expand(shell, 'web=3000', undefined)).toEqual({
            code: 0,
            expose: 'web=3000',
            error: ''
          })
          expect(expand(shell, 'web-{index}', '200').expose).toBe('web-200')
          expect(expand(shell, '{index}{index}', '12').expose).toBe('1212')
        })

        it('expands nothing else of the input', () => {
          // What the input's regex lets through: no quote, no space.
          const text = 'web-{index}=$HOME,a=$(id),b=`id`,c=${PATH},d=\\{index}'
          expect(expand(shell, text, '2')).toEqual({
            code: 0,
            expose: 'web-2=$HOME,a=$(id),b=`id`,c=${PATH},d=\\2',
            error: ''
          })
        })

        it.each([undefined, '', '0', '01', '201', '1000', '1;id', '$(id)', '2 ', '-1', '{index}'])(
          'refuses CI_NODE_INDEX %p, when expose names {index}',
          index => {
            const ran = expand(shell, 'web-{index}=3000', index)
            expect(ran).toEqual({
              code: 1,
              expose: '',
              error:
                "tunnel-credentials: expose names {index}, which becomes CI_NODE_INDEX, but this job's CI_NODE_INDEX is not a number from 1 to 200: give the job parallel:, or leave {index} out of expose."
            })
          }
        )
      })
    })

    it('gives every setting as a flag in single quotes, from an input whose regex keeps quotes out, never as a variable', () => {
      expect(Object.keys(job.variables as object)).toEqual(['RUNNER_SCRIPT_TIMEOUT'])
      const quoted = lines.flatMap(line => [...line.matchAll(/'\$\[\[ inputs\.([\w-]+) \]\]'/g)])
      const names = new Set(quoted.map(([, name]) => name))
      // Everything the CLI reads, and the package's source.
      expect([...names].sort()).toEqual(
        Object.keys(inputs)
          .filter(
            name =>
              !['job-name', 'stage', 'image', 'timeout', 'script-timeout', 'script'].includes(name)
          )
          .sort()
      )
      for (const name of names) {
        const { regex, options } = inputs[name]
        const allowed = (value: string) =>
          options ? options.includes(value) : new RegExp(regex ?? '').test(value)
        expect([name, ["x'y", "'", "';id;'"].filter(allowed)]).toEqual([name, []])
      }
      // No input reaches the script unquoted, but the user's own commands.
      const bare = lines.join('\n').replace(/'\$\[\[ inputs\.[\w-]+ \]\]'/g, '')
      expect([...bare.matchAll(/\$\[\[ inputs\.([\w-]+)/g)].map(([, name]) => name)).toEqual([
        'script'
      ])
    })

    it('sets RUNNER_SCRIPT_TIMEOUT from script-timeout, below the default timeout', () => {
      expect((job.variables as Record<string, string>).RUNNER_SCRIPT_TIMEOUT).toBe(
        '$[[ inputs.script-timeout ]]'
      )
      const minutes = (text: string) =>
        [...text.matchAll(/(\d+)([hms])/g)].reduce(
          (sum, [, n, unit]) =>
            sum + Number(n) * { h: 60, m: 1, s: 1 / 60 }[unit as 'h' | 'm' | 's'],
          0
        )
      const timeout = String(inputs.timeout.default)
      const scriptTimeout = String(inputs['script-timeout'].default)
      expect(minutes(timeout) - minutes(scriptTimeout)).toBeGreaterThanOrEqual(10)
      expect(new RegExp(inputs['script-timeout'].regex ?? '').test(scriptTimeout)).toBe(true)
    })
  })

  it("is documented in docs/other-ci.md: one table row per input, with the input's default", () => {
    const doc = readFileSync(join(root, 'docs', 'other-ci.md'), 'utf8')
    const section = doc.slice(doc.indexOf('### GitLab CI/CD component'))
    const rows = [...section.matchAll(/^\| `([\w-]+)` +\| ([^|]+?) +\|/gm)].map(
      ([, name, value]) => [name, value]
    )
    const documented = rows.slice(0, Object.keys(inputs).length)
    expect(Object.fromEntries(documented)).toEqual(
      Object.fromEntries(
        Object.entries(inputs).map(([name, input]) => [
          name,
          input.default === undefined
            ? '(required)'
            : Array.isArray(input.default) && input.default.length === 0
              ? 'none'
              : input.default === ''
                ? 'empty'
                : `\`${String(input.default)}\``
        ])
      )
    )
  })
})
