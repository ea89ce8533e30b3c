/**
 * The zizmor-like audit (scripts/workflow-audit.ts, which lists the audits it emulates): this
 * repository's .github/ and action.yml pass it, the README's workflow snippets pass its step
 * audits as a user would paste them, and each audit catches the workflow it is about.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../scripts/runner.js'
import {
  auditAction,
  auditDependabot,
  auditRepository,
  auditSteps,
  auditWorkflow
} from '../scripts/workflow-audit.js'
import { pastedWorkflows } from '../scripts/workflow-snippets.js'
import { parse } from 'yaml'

const audits = (found: { audit: string }[]) => found.map(f => f.audit)

describe('this repository', () => {
  it('has no finding in .github/ or action.yml', () => {
    expect(auditRepository(repoRoot)).toEqual([])
  })

  it.each(['README.md', 'docs/plain-ssh.md', 'docs/sharing.md'])(
    '%s: its workflow snippets keep the token out of .git/ and ${{ }} out of run:',
    page => {
      const pasted = pastedWorkflows(readFileSync(join(repoRoot, page), 'utf8'))
      expect(pasted.length).toBeGreaterThan(0)
      const found = pasted.flatMap(wf => {
        const jobs = (parse(wf.text) as { jobs: Record<string, { steps: unknown }> }).jobs
        return Object.values(jobs).flatMap(job => auditSteps(job.steps, page, false))
      })
      // The docs pin `<commit-sha>` for the reader to fill in: that one is not theirs to fix.
      expect(found.filter(f => f.audit !== 'unpinned-uses')).toEqual([])
    }
  )
})

const workflow = (jobs: string, head = 'on: push\npermissions: {}\n') => `${head}jobs:\n${jobs}`
const job = (steps: string, extra = '') =>
  `  build:\n    runs-on: ubuntu-latest\n${extra}    steps:\n${steps}`
const PIN = '3d3c42e5aac5ba805825da76410c181273ba90b1'

describe('each audit catches its case', () => {
  it.each([
    ['unpinned-uses', job('      - uses: actions/setup-node@v7\n')],
    ['unpinned-uses', job('      - uses: docker://alpine:3\n')],
    ['unpinned-uses', '  call:\n    uses: org/repo/.github/workflows/x.yml@main\n'],
    ['artipacked', job(`      - uses: actions/checkout@${PIN}\n`)],
    ['template-injection', job('      - run: echo "${{ github.ref_name }}"\n')],
    [
      'template-injection',
      job(
        `      - uses: actions/github-script@${PIN}\n        with:\n          script: console.log('\${{ inputs.x }}')\n`
      )
    ],
    ['excessive-permissions', job('      - run: true\n', '    permissions: write-all\n')],
    ['secrets-inherit', '  call:\n    uses: ./.github/workflows/x.yml\n    secrets: inherit\n'],
    ['self-hosted-runner', '  build:\n    runs-on: [self-hosted, linux]\n    steps: []\n'],
    ['unpinned-images', job('      - run: true\n', '    container: node:24\n')],
    [
      'hardcoded-container-credentials',
      job(
        '      - run: true\n',
        `    container:\n      image: node@sha256:${'a'.repeat(64)}\n      credentials: { username: u, password: hunter2 }\n`
      )
    ],
    [
      'hardcoded-credentials',
      job(`      - uses: ./\n        with:\n          api-key: sk_${'0'.repeat(64)}\n`)
    ],
    [
      'hardcoded-credentials',
      job('      - run: true\n        env:\n          GH_TOKEN: ghp_abc\n')
    ],
    [
      'secrets-outside-env',
      job('      - run: true\n        env:\n          K: ${{ secrets.KEY }}\n')
    ],
    [
      'overprovisioned-secrets',
      job('      - run: true\n        env:\n          ALL: ${{ toJSON(secrets) }}\n')
    ],
    [
      'unredacted-secrets',
      job('      - run: true\n        env:\n          K: ${{ fromJSON(secrets.JSON).k }}\n')
    ],
    [
      'insecure-commands',
      job('      - run: true\n        env:\n          ACTIONS_ALLOW_UNSECURE_COMMANDS: true\n')
    ],
    ['bot-conditions', job("      - run: true\n        if: github.actor == 'dependabot[bot]'\n")],
    [
      'use-trusted-publishing',
      job(
        '      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ github.token }}\n'
      )
    ]
  ])('%s', (audit, jobs) => {
    expect(audits(auditWorkflow('w.yml', workflow(jobs)))).toContain(audit)
  })

  it('excessive-permissions: no top-level permissions, or a write there', () => {
    const steps = job('      - run: true\n')
    expect(audits(auditWorkflow('w.yml', workflow(steps, 'on: push\n')))).toEqual([
      'excessive-permissions'
    ])
    const write = 'on: push\npermissions:\n  contents: write\n'
    expect(audits(auditWorkflow('w.yml', workflow(steps, write)))).toEqual([
      'excessive-permissions'
    ])
  })

  it.each(['pull_request_target', 'workflow_run'])('dangerous-triggers: %s', trigger => {
    const head = `on:\n  ${trigger}:\npermissions: {}\n`
    expect(audits(auditWorkflow('w.yml', workflow(job('      - run: true\n'), head)))).toEqual([
      'dangerous-triggers'
    ])
  })

  it('cache-poisoning: a cache in a workflow that releases, and only there', () => {
    const steps = job(
      `      - uses: actions/setup-node@${PIN}\n        with:\n          cache: npm\n` +
        `      - uses: actions/cache@${PIN}\n        with:\n          path: x\n          key: k\n`
    )
    const onTag = "on:\n  push:\n    tags: ['v*']\npermissions: {}\n"
    expect(audits(auditWorkflow('w.yml', workflow(steps, onTag)))).toEqual([
      'cache-poisoning', // cache: npm
      'cache-poisoning', // setup-node's own cache left on
      'cache-poisoning' // actions/cache
    ])
    expect(audits(auditWorkflow('w.yml', workflow(steps)))).toEqual([])
  })

  it('template-injection and unpinned-uses in a composite action', () => {
    const action =
      'runs:\n  using: composite\n  steps:\n    - run: echo "${{ inputs.name }}"\n      shell: bash\n    - uses: actions/cache@v4\n'
    expect(audits(auditAction('action.yml', action))).toEqual([
      'template-injection',
      'unpinned-uses'
    ])
  })

  it('dependabot-cooldown and dependabot-execution', () => {
    const cfg =
      'version: 2\nupdates:\n  - package-ecosystem: npm\n    cooldown:\n      default-days: 3\n' +
      '  - package-ecosystem: pip\n    insecure-external-code-execution: allow\n    cooldown:\n      default-days: 7\n' +
      '  - package-ecosystem: github-actions\n'
    expect(auditDependabot('dependabot.yml', cfg)).toEqual([
      expect.objectContaining({ audit: 'dependabot-cooldown', where: 'dependabot.yml, npm' }),
      expect.objectContaining({ audit: 'dependabot-execution', where: 'dependabot.yml, pip' }),
      expect.objectContaining({
        audit: 'dependabot-cooldown',
        where: 'dependabot.yml, github-actions'
      })
    ])
  })

  it('passes what is fine: pinned, no expansion in run:, values through env:', () => {
    const steps = job(
      `      - uses: actions/checkout@${PIN}\n        with:\n          persist-credentials: false\n` +
        '      - run: echo "$REF"\n        env:\n          REF: ${{ github.ref_name }}\n' +
        '          GH_TOKEN: ${{ github.token }}\n',
      '    permissions:\n      contents: read\n'
    )
    expect(auditWorkflow('w.yml', workflow(steps))).toEqual([])
  })
})
