/**
 * The release workflow, read as the runner would run it. Trusted publishing cannot run on this
 * machine, so what it needs is checked in the file: the OIDC permission, no npm token, publish
 * after the GitHub release, only a tag of main, attestations of dist/ and of the tarball that is
 * published, the major tag moved after the release, and no dependency cache. The steps that decide
 * something (the tag is on main, npm is new enough, the major tag moves) are run with bash against
 * a scratch repository and stand-ins for `gh` and `npm`.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { repoRoot } from '../scripts/runner.js'

interface Step {
  name?: string
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  needs?: string | string[]
  permissions?: Record<string, string>
  steps: Step[]
}

const text = readFileSync(join(repoRoot, '.github/workflows/release.yml'), 'utf8')
const jobs = (parse(text) as { jobs: Record<string, Job> }).jobs
const steps = Object.values(jobs).flatMap(j => j.steps)

const jobWhere = (test: (s: Step) => boolean): string => {
  const id = Object.keys(jobs).find(k => jobs[k].steps.some(test))
  if (id === undefined) throw new Error('no job has such a step')
  return id
}
const runs = (pattern: RegExp) => (s: Step) => s.run !== undefined && pattern.test(s.run)
const usesAction = (name: string) => (s: Step) => s.uses?.split('@')[0] === name
const needsOf = (id: string): string[] => [jobs[id].needs ?? []].flat()
/** The job and every job it waits for, directly or not. */
const chain = (id: string): string[] => [id, ...needsOf(id).flatMap(chain)]

const PUBLISH = /\bnpm publish\b/
const CREATE_RELEASE = /\bgh release create\b/
const ON_MAIN = /git merge-base --is-ancestor "\$GITHUB_SHA" origin\/main/

/** Runs a step's script as the runner does (bash -eo pipefail) and returns its exit code. */
function runStep(step: Step, cwd: string, env: Record<string, string>) {
  const script = join(cwd, '.step.sh')
  writeFileSync(script, step.run ?? '')
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8'
  })
  return { status: r.status, output: r.stdout + r.stderr }
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8'
  }).trim()

let scratch: string
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'release-workflow-'))
})
afterEach(() => rmSync(scratch, { recursive: true, force: true }))

describe('publishing', () => {
  const publishJob = () => jobWhere(runs(PUBLISH))

  it('goes through npm trusted publishing: an OIDC token, Node 24, and no npm token at all', () => {
    const job = jobs[publishJob()]
    expect(job.permissions?.['id-token']).toBe('write')
    expect(text).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN/)
    const setupNode = job.steps.find(usesAction('actions/setup-node'))
    expect(String(setupNode?.with?.['node-version'])).toBe('24')
    expect(job.steps.find(runs(PUBLISH))?.run).toMatch(/--provenance/)
  })

  it('happens only after the job that creates the GitHub release has succeeded', () => {
    expect(chain(publishJob())).toContain(jobWhere(runs(CREATE_RELEASE)))
  })

  it('refuses an npm older than 11.5.1, which cannot publish by trusted publishing', () => {
    const check = jobs[publishJob()].steps.find(runs(/npm --version/))
    expect(check).toBeDefined()
    const bin = join(scratch, 'bin')
    execFileSync('mkdir', [bin])
    const verdict = (version: string) => {
      writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho ${version}\n`)
      chmodSync(join(bin, 'npm'), 0o755)
      return runStep(check!, scratch, { PATH: `${bin}:${process.env.PATH}` }).status
    }
    expect(['11.4.2', '11.5.0', '10.9.3'].map(verdict)).toEqual([1, 1, 1])
    expect(['11.5.1', '11.10.0', '12.0.0'].map(verdict)).toEqual([0, 0, 0])
  })
})

describe('only a tag of main is released', () => {
  it('both the release and the publish job wait for a check that the tag is on main', () => {
    const checker = jobWhere(runs(ON_MAIN))
    expect(chain(jobWhere(runs(CREATE_RELEASE)))).toContain(checker)
    expect(chain(jobWhere(runs(PUBLISH)))).toContain(checker)
    // origin/main is there to compare with only when the checkout fetched every branch.
    const checkout = jobs[checker].steps.find(usesAction('actions/checkout'))
    expect(checkout?.with?.['fetch-depth']).toBe(0)
  })

  it('fails for a commit off main and passes for one on it', () => {
    const check = steps.find(runs(ON_MAIN))!
    git(scratch, 'init', '-q', '-b', 'main')
    git(scratch, 'commit', '-q', '--allow-empty', '-m', 'on main')
    const onMain = git(scratch, 'rev-parse', 'HEAD')
    git(scratch, 'update-ref', 'refs/remotes/origin/main', onMain)
    git(scratch, 'checkout', '-q', '-b', 'side')
    git(scratch, 'commit', '-q', '--allow-empty', '-m', 'off main')
    const offMain = git(scratch, 'rev-parse', 'HEAD')
    expect(runStep(check, scratch, { GITHUB_SHA: offMain }).status).toBe(1)
    expect(runStep(check, scratch, { GITHUB_SHA: onMain }).status).toBe(0)
  })
})

describe('attestations', () => {
  const attestations = steps.filter(usesAction('actions/attest-build-provenance'))

  it('attest dist/ in a job allowed to sign and store them', () => {
    const dist = attestations.find(s => String(s.with?.['subject-path']).startsWith('dist/'))
    expect(dist).toBeDefined()
    const job = jobs[jobWhere(s => s === dist)]
    expect(job.permissions).toMatchObject({ 'id-token': 'write', attestations: 'write' })
  })

  it('attest the very tarball that is published, before it is published', () => {
    const job = jobs[jobWhere(runs(PUBLISH))]
    const publish = job.steps.findIndex(runs(PUBLISH))
    const attest = job.steps.findIndex(usesAction('actions/attest-build-provenance'))
    expect(attest).toBeGreaterThanOrEqual(0)
    expect(attest).toBeLessThan(publish)
    const tarball = job.steps[attest].with?.['subject-path']
    expect(tarball).toMatch(/^\$\{\{ steps\.\w+\.outputs\.\w+ \}\}$/)
    // npm publishes the file named in TARBALL, which is that same output.
    expect(job.steps[publish].env?.TARBALL).toBe(tarball)
    expect(job.steps[publish].run).toMatch(/npm publish "\$TARBALL"/)
    expect(job.permissions?.attestations).toBe('write')
  })
})

describe('the major tag', () => {
  const job = () => jobs[jobWhere(runs(CREATE_RELEASE))]
  const moveStep = () => job().steps.find(runs(/\$\{TAG%%\.\*\}/))

  it('moves after the release is created, in the same job', () => {
    const move = job().steps.indexOf(moveStep()!)
    expect(move).toBeGreaterThan(job().steps.findIndex(runs(CREATE_RELEASE)))
  })

  // The checkout keeps no credentials (artipacked), so a `git push` from the step would be
  // refused; origin here is a loopback address where nothing listens, and must not be needed.
  function moveWith(v1Exists: boolean) {
    git(scratch, 'init', '-q', '-b', 'main')
    git(scratch, 'commit', '-q', '--allow-empty', '-m', 'release')
    git(scratch, 'tag', '-a', 'v1.2.3', '-m', 'v1.2.3')
    git(scratch, 'remote', 'add', 'origin', 'https://127.0.0.1:9/owner/repo.git')
    const bin = join(scratch, 'bin')
    execFileSync('mkdir', [bin])
    const calls = join(scratch, 'gh-calls')
    // `gh api` GET of the tag: found or not; any other call is recorded and succeeds.
    writeFileSync(
      join(bin, 'gh'),
      `#!/bin/sh\nif [ "$2" = "repos/owner/repo/git/ref/tags/v1" ]; then exit ${v1Exists ? 0 : 1}; fi\n` +
        `echo "$*" >> "${calls}"\n`
    )
    chmodSync(join(bin, 'gh'), 0o755)
    const result = runStep(moveStep()!, scratch, {
      PATH: `${bin}:${process.env.PATH}`,
      TAG: 'v1.2.3',
      GH_TOKEN: 'not-a-token',
      GITHUB_REPOSITORY: 'owner/repo',
      GIT_TERMINAL_PROMPT: '0'
    })
    const commit = git(scratch, 'rev-parse', 'v1.2.3^{commit}')
    let recorded = ''
    try {
      recorded = readFileSync(calls, 'utf8')
    } catch {
      // no call recorded
    }
    return { status: result.status, recorded, commit }
  }

  it('force-updates an existing v1 to the release commit with the job token, not git push', () => {
    const { status, recorded, commit } = moveWith(true)
    expect(status).toBe(0)
    expect(recorded).toBe(
      `api --method PATCH repos/owner/repo/git/refs/tags/v1 -f sha=${commit} -F force=true\n`
    )
  })

  it('creates v1 at the release commit when there is none yet', () => {
    const { status, recorded, commit } = moveWith(false)
    expect(status).toBe(0)
    expect(recorded).toBe(
      `api --method POST repos/owner/repo/git/refs -f ref=refs/tags/v1 -f sha=${commit}\n`
    )
  })
})

describe('no dependency cache', () => {
  it('neither actions/cache nor a setup action with its cache on', () => {
    expect(steps.filter(s => /^actions\/cache\b/.test(s.uses ?? ''))).toEqual([])
    const setups = steps.filter(s => /^actions\/setup-/.test(s.uses ?? ''))
    expect(setups.length).toBeGreaterThan(0)
    for (const s of setups) {
      expect(s.with?.cache).toBeUndefined()
      // setup-node turns a cache on by itself when package.json names npm as its manager.
      expect(s.with?.['package-manager-cache']).toBe(false)
    }
  })
})
