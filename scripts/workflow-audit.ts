/**
 * A static audit of the workflows, local actions, action.yml and dependabot.yml, after zizmor's
 * audits at its pedantic persona, medium severity or more. zizmor itself cannot run here (no
 * binary in a registry this project can use), so `__tests__/workflow-audit.test.ts` runs this in
 * `npm test`. Each finding names the zizmor audit it stands for:
 *
 * - unpinned-uses: every `uses:` outside this repository is pinned by a full commit SHA (and a
 *   `docker://` image by digest); unpinned-images: so are job and service containers.
 * - artipacked: `actions/checkout` with `persist-credentials: false`.
 * - template-injection: no `${{ }}` at all in a `run:` or in github-script's `script:`
 *   (pedantic flags every expansion, not only the ones an attacker sets); values go via `env:`.
 * - excessive-permissions: `permissions:` declared at the top (no write there, no write-all or
 *   read-all anywhere), so every job gets only what it declares.
 * - dangerous-triggers: no `pull_request_target` and no `workflow_run` (which also rules out
 *   github-env's case, GITHUB_ENV written where a fork controls the input).
 * - cache-poisoning: a workflow that releases (tag or release trigger, or a publish) has no
 *   `actions/cache` and no setup-* cache (`cache:` set, or setup-node's automatic one left on).
 * - secrets-inherit, secrets-outside-env (a secret used by a job with no `environment:`),
 *   overprovisioned-secrets (`toJSON(secrets)`, `secrets[...]`), unredacted-secrets
 *   (`fromJSON(secrets...)`).
 * - hardcoded-container-credentials, and this project's wider form: no literal value for a
 *   `with:` or `env:` key that names a credential (password, token, secret, api key).
 * - insecure-commands (ACTIONS_ALLOW_UNSECURE_COMMANDS), bot-conditions (`github.actor ==
 *   '...[bot]'`), self-hosted-runner.
 * - use-trusted-publishing: no NPM_TOKEN or NODE_AUTH_TOKEN; npm trusts the workflow's OIDC token.
 * - dependabot-cooldown (7 days or more for every ecosystem), dependabot-execution.
 *
 * Not emulated, since they need GitHub's API: impostor-commit, ref-confusion, known-vulnerable-
 * actions, stale-action-refs, ref-version-mismatch and archived-uses. Dependabot keeps the pins
 * current and `__tests__/workflows.test.ts` checks that each pin names its version.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

export interface Finding {
  audit: string
  where: string
  message: string
}

type Map = Record<string, unknown>
const isMap = (v: unknown): v is Map => typeof v === 'object' && v !== null && !Array.isArray(v)
const asMap = (v: unknown): Map => (isMap(v) ? v : {})
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

const FULL_SHA = /@[0-9a-f]{40}$/
const DIGEST = /@sha256:[0-9a-f]{64}$/
const EXPRESSION = /\$\{\{/
const WHOLE_EXPRESSION = /^\s*\$\{\{[^}]*\}\}\s*$/
// Key names that hold a credential; `persist-credentials` and the like take a boolean, not one.
const CREDENTIAL_KEY = /(password|passwd|secret|token|api[-_]?key|private[-_]?key)$/i

/** Findings for the steps of one job, or of a composite action. */
export function auditSteps(steps: unknown, where: string, releases: boolean): Finding[] {
  const found: Finding[] = []
  const add = (audit: string, message: string) => found.push({ audit, where, message })
  asList(steps).forEach((raw, i) => {
    const step = asMap(raw)
    const name = `step ${i + 1}${typeof step.name === 'string' ? ` (${step.name})` : ''}`
    const uses = typeof step.uses === 'string' ? step.uses : undefined
    const inputs = asMap(step.with)
    if (uses !== undefined) found.push(...auditUses(uses, `${where}, ${name}`))
    if (uses?.startsWith('actions/checkout@') && inputs['persist-credentials'] !== false) {
      add('artipacked', `${name}: actions/checkout without persist-credentials: false`)
    }
    if (typeof step.run === 'string' && EXPRESSION.test(step.run)) {
      add('template-injection', `${name}: \${{ }} in run:; pass the value through env:`)
    }
    const script = inputs.script
    if (uses?.startsWith('actions/github-script@') && typeof script === 'string') {
      if (EXPRESSION.test(script)) add('template-injection', `${name}: \${{ }} in script:`)
    }
    if (releases && uses !== undefined && /^actions\/cache(\/\w+)?@/.test(uses)) {
      add('cache-poisoning', `${name}: ${uses.split('@')[0]} in a workflow that releases`)
    }
    if (releases && uses !== undefined && /^actions\/setup-/.test(uses)) {
      if (inputs.cache !== undefined) {
        add('cache-poisoning', `${name}: cache: in a workflow that releases`)
      }
      if (uses.startsWith('actions/setup-node@') && inputs['package-manager-cache'] !== false) {
        add('cache-poisoning', `${name}: setup-node without package-manager-cache: false`)
      }
    }
    for (const [kind, values] of [
      ['with', inputs],
      ['env', asMap(step.env)]
    ] as const) {
      found.push(...literalCredentials(values, `${where}, ${name}, ${kind}`))
    }
  })
  return found
}

function auditUses(uses: string, where: string): Finding[] {
  if (uses.startsWith('./')) return []
  const pinned = uses.startsWith('docker://') ? DIGEST.test(uses) : FULL_SHA.test(uses)
  if (pinned) return []
  return [{ audit: 'unpinned-uses', where, message: `${uses} is not pinned by a full commit SHA` }]
}

function literalCredentials(values: Map, where: string): Finding[] {
  return Object.entries(values)
    .filter(([key, value]) => CREDENTIAL_KEY.test(key) && typeof value === 'string')
    .filter(([, value]) => !WHOLE_EXPRESSION.test(value as string))
    .map(([key]) => ({
      audit: 'hardcoded-credentials',
      where,
      message: `${key} is a literal; take it from a secret or a step's output`
    }))
}

function auditContainer(container: unknown, where: string): Finding[] {
  const found: Finding[] = []
  const spec = typeof container === 'string' ? { image: container } : asMap(container)
  const image = spec.image
  if (typeof image === 'string' && !image.startsWith('${{') && !DIGEST.test(image)) {
    found.push({ audit: 'unpinned-images', where, message: `${image} is not pinned by digest` })
  }
  const password = asMap(spec.credentials).password
  if (typeof password === 'string' && !WHOLE_EXPRESSION.test(password)) {
    found.push({
      audit: 'hardcoded-container-credentials',
      where,
      message: 'a literal registry password'
    })
  }
  return found
}

/** Whether a workflow puts something out into the world: a tag or release trigger, or a publish. */
function releases(wf: Map, text: string): boolean {
  const on = wf.on
  const triggers = isMap(on) ? on : {}
  const tagPush = isMap(triggers.push) && triggers.push.tags !== undefined
  return tagPush || 'release' in triggers || /\b(npm|pnpm|yarn) publish\b/.test(text)
}

function triggerNames(on: unknown): string[] {
  if (typeof on === 'string') return [on]
  if (Array.isArray(on)) return on.map(String)
  return Object.keys(asMap(on))
}

const writes = (p: unknown): boolean =>
  typeof p === 'string' ? p === 'write-all' : Object.values(asMap(p)).includes('write')

/** Findings of one workflow file, given its text. */
export function auditWorkflow(file: string, text: string): Finding[] {
  const wf = asMap(parse(text))
  const found: Finding[] = []
  const add = (audit: string, where: string, message: string) =>
    found.push({ audit, where, message })
  for (const trigger of triggerNames(wf.on)) {
    if (trigger === 'pull_request_target' || trigger === 'workflow_run') {
      add('dangerous-triggers', file, `on: ${trigger}`)
    }
  }
  if (wf.permissions === undefined) add('excessive-permissions', file, 'no top-level permissions')
  else if (writes(wf.permissions) || wf.permissions === 'read-all') {
    add('excessive-permissions', file, 'write or read-all at the top level; grant it per job')
  }
  const releasing = releases(wf, text)
  for (const [id, raw] of Object.entries(asMap(wf.jobs))) {
    const job = asMap(raw)
    const where = `${file}, job ${id}`
    if (job.permissions === 'write-all' || job.permissions === 'read-all') {
      add('excessive-permissions', where, `permissions: ${job.permissions}`)
    }
    if (typeof job.uses === 'string') found.push(...auditUses(job.uses, where))
    if (job.secrets === 'inherit') add('secrets-inherit', where, 'secrets: inherit')
    const runsOn = JSON.stringify(job['runs-on'] ?? '')
    if (runsOn.includes('self-hosted')) add('self-hosted-runner', where, 'runs-on: self-hosted')
    if (job.container !== undefined) found.push(...auditContainer(job.container, where))
    for (const [name, service] of Object.entries(asMap(job.services))) {
      found.push(...auditContainer(service, `${where}, service ${name}`))
    }
    found.push(...literalCredentials(asMap(job.env), `${where}, env`))
    found.push(...auditSteps(job.steps, where, releasing))
    const jobText = JSON.stringify(job)
    const secrets = jobText.match(/\bsecrets\.(\w+)/g) ?? []
    if (job.environment === undefined && secrets.some(s => s !== 'secrets.GITHUB_TOKEN')) {
      add('secrets-outside-env', where, `${secrets.join(', ')} in a job with no environment:`)
    }
  }
  found.push(...textAudits(file, text))
  return found
}

/** The audits that look at expressions wherever they are. */
function textAudits(file: string, text: string): Finding[] {
  const rules: [string, RegExp, string][] = [
    ['overprovisioned-secrets', /toJSON\(\s*secrets\s*\)|\bsecrets\[/, 'every secret at once'],
    ['unredacted-secrets', /fromJSON\(\s*secrets\./, 'a secret parsed as JSON is not masked'],
    ['insecure-commands', /ACTIONS_ALLOW_UNSECURE_COMMANDS/, 'set-env and add-path turned on'],
    ['bot-conditions', /github\.actor\s*==\s*'[^']*\[bot\]'/, 'github.actor can be spoofed'],
    ['use-trusted-publishing', /\bNPM_TOKEN\b|\bNODE_AUTH_TOKEN\b/, 'an npm token; use OIDC']
  ]
  return rules
    .filter(([, pattern]) => pattern.test(text))
    .map(([audit, , message]) => ({ audit, where: file, message }))
}

/** Findings of an action's metadata (action.yml): a composite action's steps, its image. */
export function auditAction(file: string, text: string): Finding[] {
  const runs = asMap(asMap(parse(text)).runs)
  const found = auditSteps(runs.steps, file, false)
  if (typeof runs.image === 'string' && runs.image.startsWith('docker://')) {
    found.push(...auditUses(runs.image, file))
  }
  return found
}

/** Findings of dependabot.yml: a cooldown of a week or more, no external code execution. */
export function auditDependabot(file: string, text: string): Finding[] {
  const found: Finding[] = []
  for (const raw of asList(asMap(parse(text)).updates)) {
    const update = asMap(raw)
    const where = `${file}, ${String(update['package-ecosystem'])}`
    const days = asMap(update.cooldown)['default-days']
    if (typeof days !== 'number' || days < 7) {
      found.push({ audit: 'dependabot-cooldown', where, message: 'cooldown under 7 days or none' })
    }
    if (update['insecure-external-code-execution'] === 'allow') {
      found.push({ audit: 'dependabot-execution', where, message: 'external code execution' })
    }
  }
  return found
}

/** Every finding in a repository checkout: .github/ and action.yml. */
export function auditRepository(root: string): Finding[] {
  const read = (path: string) => readFileSync(join(root, path), 'utf8')
  const yamlIn = (dir: string) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .filter(f => /\.ya?ml$/.test(f))
          .sort()
      : []
  const found: Finding[] = []
  for (const f of yamlIn('.github/workflows')) {
    found.push(...auditWorkflow(`.github/workflows/${f}`, read(`.github/workflows/${f}`)))
  }
  const actions = existsSync(join(root, '.github/actions'))
    ? readdirSync(join(root, '.github/actions')).map(d => `.github/actions/${d}`)
    : []
  for (const dir of ['.', ...actions]) {
    const file = yamlIn(dir).find(f => /^action\.ya?ml$/.test(f))
    if (file !== undefined) found.push(...auditAction(join(dir, file), read(join(dir, file))))
  }
  if (existsSync(join(root, '.github/dependabot.yml'))) {
    found.push(...auditDependabot('.github/dependabot.yml', read('.github/dependabot.yml')))
  }
  return found
}
