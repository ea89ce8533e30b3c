/**
 * templates/tunnel-credentials.yml is a GitLab CI/CD component: a `spec: inputs:` header, `---`,
 * then the job. GitLab refuses a component that uses an input it does not declare; one declared
 * and never used is a knob that does nothing. Both are checked here without GitLab.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, parseAllDocuments } from 'yaml'

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

  it('requires only the script: everything else has a default', () => {
    const required = Object.entries(inputs).filter(([, input]) => input.default === undefined)
    expect(required.map(([name]) => name)).toEqual(['script'])
    expect(inputs.script.type).toBe('array')
  })

  it("takes the action's defaults for the inputs the two share", () => {
    for (const name of ['credential', 'url-template', 'environment', 'ttl-minutes', 'expose']) {
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

  it('has one job that provisions and loads first and revokes in after_script, with no API key input', () => {
    const jobs = documents[1].toJS() as Record<string, Record<string, unknown>>
    expect(Object.keys(jobs)).toEqual(['$[[ inputs.job-name ]]'])
    const job = Object.values(jobs)[0]
    const before = job.before_script as string[]
    expect(before[0]).toMatch(
      /^npx --yes --package "\$TUNNEL_CREDENTIALS_PACKAGE" -- tunnel-credentials provision$/
    )
    expect(before[1]).toBe('set -a; . ./tunnel.env; set +a')
    expect(job.after_script).toEqual([
      'npx --yes --package "$TUNNEL_CREDENTIALS_PACKAGE" -- tunnel-credentials revoke'
    ])
    expect(job.script).toBe('$[[ inputs.script ]]')
    expect(Object.keys(inputs).filter(name => /key$|token|secret/i.test(name))).toEqual([
      'tunnel-host-key'
    ])
    expect(JSON.stringify(job.variables)).not.toContain('SVC_API_KEY')
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
            : input.default === ''
              ? 'empty'
              : `\`${String(input.default)}\``
        ])
      )
    )
  })
})
