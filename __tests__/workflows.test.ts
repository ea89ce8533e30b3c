/**
 * What actionlint does not check: third-party actions pinned by commit SHA
 * (with the version in a comment, for Dependabot and for readers), least
 * permissions declared everywhere, no event fields expanded inside run:, and
 * no run: that prints a token or an API key.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = join(root, '.github', 'workflows')
const files = readdirSync(dir).filter(f => /\.ya?ml$/.test(f))

type Step = { uses?: string; run?: string }
type Job = { permissions?: unknown; uses?: string; steps?: Step[] }
type Workflow = { permissions?: unknown; jobs?: Record<string, Job> }

const PINNED = /^[^@\s]+@[0-9a-f]{40}$/
// Values a fork can set: PR titles and bodies, branch names, commit messages...
const UNTRUSTED = /\$\{\{[^}]*\b(github\.event\b|github\.head_ref\b)/
// A command line that prints a token or key: it relies on masking, and proves nothing by passing.
const PRINTS_SECRET = /\b(echo|printf)\b[^\n]*\$\{?\w*(TUNNEL_TOKEN|API_KEY)\b/

/** Problems of one parsed workflow, as sentences; empty when it is fine. */
function workflowProblems(wf: Workflow): string[] {
  const problems: string[] = []
  const top = wf.permissions
  if (top === undefined) problems.push('no top-level permissions')
  if (JSON.stringify(top ?? {}).includes('write')) problems.push('write permission at top level')
  for (const [id, job] of Object.entries(wf.jobs ?? {})) {
    if (job.permissions === undefined && top === undefined) {
      problems.push(`job ${id}: no permissions`)
    }
    if (job.permissions === 'write-all') problems.push(`job ${id}: write-all`)
    const uses = [job.uses, ...(job.steps ?? []).map(s => s.uses)]
    for (const u of uses) {
      if (u === undefined || u.startsWith('./') || u.startsWith('docker://')) continue
      if (!PINNED.test(u)) problems.push(`job ${id}: ${u} is not pinned by a full commit SHA`)
    }
    for (const step of job.steps ?? []) {
      if (step.run !== undefined && UNTRUSTED.test(step.run)) {
        problems.push(`job ${id}: run: expands an event field; pass it through env:`)
      }
      if (step.run !== undefined && PRINTS_SECRET.test(step.run)) {
        problems.push(`job ${id}: run: prints a token or API key`)
      }
    }
  }
  return problems
}

/** Lines that pin by SHA but carry no `# vN` comment naming the version. */
function pinsWithoutVersionComment(text: string): string[] {
  return text
    .split('\n')
    .filter(l => /uses:\s*[^\s@]+@[0-9a-f]{40}/.test(l) && !/#\s*v\d/.test(l))
    .map(l => l.trim())
}

describe('workflow files', () => {
  it('exist, including the five this repository promises', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'ci.yml',
        'check-dist.yml',
        'self-test.yml',
        'codeql.yml',
        'release.yml'
      ])
    )
  })

  describe.each(files)('%s', file => {
    const text = readFileSync(join(dir, file), 'utf8')
    const wf = parse(text) as Workflow

    it('pins actions by SHA, declares permissions, keeps event fields and secrets out of run:', () => {
      expect(workflowProblems(wf)).toEqual([])
    })

    it('names the version of every pinned action in a comment', () => {
      expect(pinsWithoutVersionComment(text)).toEqual([])
    })
  })

  it('self-test runs the action from this checkout', () => {
    const wf = parse(readFileSync(join(dir, 'self-test.yml'), 'utf8')) as Workflow
    const uses = Object.values(wf.jobs ?? {}).flatMap(j => (j.steps ?? []).map(s => s.uses))
    expect(uses).toContain('./')
  })
})

describe('the checks catch a bad workflow', () => {
  const bad: Workflow = {
    jobs: {
      build: {
        steps: [
          { uses: 'actions/checkout@v4' },
          { uses: 'actions/setup-node@main' },
          { run: 'echo "${{ github.event.pull_request.title }}"' },
          { run: 'git checkout ${{ github.head_ref }}' },
          { run: 'echo "token: $SVC_TUNNEL_TOKEN"' },
          { run: 'printf "%s" "${SVC_API_KEY}" | wc -c' }
        ]
      },
      nasty: { permissions: 'write-all', uses: 'org/repo/.github/workflows/x.yml@v1' }
    }
  }

  it('reports each problem', () => {
    expect(workflowProblems(bad)).toEqual([
      'no top-level permissions',
      'job build: no permissions',
      'job build: actions/checkout@v4 is not pinned by a full commit SHA',
      'job build: actions/setup-node@main is not pinned by a full commit SHA',
      'job build: run: expands an event field; pass it through env:',
      'job build: run: expands an event field; pass it through env:',
      'job build: run: prints a token or API key',
      'job build: run: prints a token or API key',
      'job nasty: write-all',
      'job nasty: org/repo/.github/workflows/x.yml@v1 is not pinned by a full commit SHA'
    ])
  })

  it('reports write permissions at the top level', () => {
    expect(workflowProblems({ permissions: { contents: 'write' }, jobs: {} })).toEqual([
      'write permission at top level'
    ])
  })

  it('reports a SHA pin with no version comment', () => {
    const text = '      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1\n'
    expect(pinsWithoutVersionComment(text)).toEqual([
      '- uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1'
    ])
  })
})

describe('dependabot', () => {
  it('updates npm packages and GitHub Actions', () => {
    const cfg = parse(readFileSync(join(dir, '..', 'dependabot.yml'), 'utf8')) as {
      updates: { 'package-ecosystem': string }[]
    }
    expect(cfg.updates.map(u => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm'])
  })
})
