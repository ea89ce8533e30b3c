import { hostname } from 'node:os'
import { detectCiSystem } from '../../src/cli/ci-system.js'
import { chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMasker, maskingLine } from '../../src/cli/masking.js'
import { installFakeBuildkiteAgent, type FakeAgent } from '../helpers/fake-buildkite-agent.js'

const NOW = 1_764_000_000_123
const now = () => NOW
const FALLBACK = { repository: hostname(), runId: '1764000000' }
const SECRET = 'tok_5ecre7-value with spaces'

describe('detectCiSystem: which system, and who runs', () => {
  it.each([
    [
      'GitHub Actions',
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_REPOSITORY: 'octo/web-shop',
        GITHUB_RUN_ID: '42',
        GITHUB_RUN_ATTEMPT: '2'
      },
      { repository: 'octo/web-shop', runId: '42', runAttempt: '2' }
    ],
    [
      'GitLab CI',
      {
        GITLAB_CI: 'true',
        CI_PROJECT_PATH: 'group/sub/app',
        CI_PIPELINE_ID: '900',
        CI_JOB_ID: '77'
      },
      { repository: 'group/sub/app', runId: '900', runAttempt: '77' }
    ],
    [
      'Azure Pipelines',
      {
        TF_BUILD: 'True',
        BUILD_REPOSITORY_NAME: 'org/app',
        BUILD_BUILDID: '1234',
        SYSTEM_JOBATTEMPT: '3'
      },
      { repository: 'org/app', runId: '1234', runAttempt: '3' }
    ],
    [
      'Buildkite',
      {
        BUILDKITE: 'true',
        BUILDKITE_PIPELINE_SLUG: 'deploy',
        BUILDKITE_BUILD_NUMBER: '15',
        BUILDKITE_RETRY_COUNT: '1'
      },
      { repository: 'deploy', runId: '15', runAttempt: '1' }
    ],
    [
      'Jenkins',
      { JENKINS_URL: 'https://ci.example/', JOB_NAME: 'folder/app', BUILD_NUMBER: '8' },
      { repository: 'folder/app', runId: '8' }
    ],
    [
      'Jenkins',
      { JENKINS_HOME: '/var/jenkins_home', JOB_NAME: 'app', BUILD_NUMBER: '9' },
      { repository: 'app', runId: '9' }
    ],
    [
      'CircleCI',
      {
        CIRCLECI: 'true',
        CIRCLE_PROJECT_USERNAME: 'octo',
        CIRCLE_PROJECT_REPONAME: 'app',
        CIRCLE_BUILD_NUM: '31'
      },
      { repository: 'octo/app', runId: '31' }
    ],
    [
      'Bitbucket Pipelines',
      { BITBUCKET_BUILD_NUMBER: '5', BITBUCKET_REPO_FULL_NAME: 'team/app' },
      { repository: 'team/app', runId: '5' }
    ]
  ])('detects %s and names the run by its variables', (name, env, run) => {
    const ci = detectCiSystem(env, now)
    expect(ci.name).toBe(name)
    expect(ci.run).toEqual(run)
  })

  it('takes a CircleCI run without a repository when one of its two parts is missing', () => {
    const ci = detectCiSystem({
      CIRCLECI: 'true',
      CIRCLE_PROJECT_REPONAME: 'app',
      CIRCLE_BUILD_NUM: '31'
    })
    expect(ci.run).toEqual({ repository: undefined, runId: '31' })
  })

  it('falls back to the host name and the time in seconds for an unknown system', () => {
    const ci = detectCiSystem({ CI: 'true', PATH: '/bin' }, now)
    expect(ci.name).toBe('an unknown CI system')
    expect(ci.run).toEqual(FALLBACK)
    expect(ci.masking).toBeUndefined()
  })

  it.each([
    ['GitHub Actions', { GITHUB_ACTIONS: 'true' }],
    ['GitLab CI', { GITLAB_CI: 'true' }],
    ['Buildkite', { BUILDKITE: 'true' }],
    ['Jenkins', { JENKINS_URL: 'https://ci.example/' }]
  ])('falls back for %s without its run variables, still naming the system', (name, env) => {
    const ci = detectCiSystem(env, now)
    expect(ci.name).toBe(name)
    expect(ci.run).toEqual(FALLBACK)
  })

  it.each([
    ['GITHUB_ACTIONS', 'false'],
    ['GITLAB_CI', '1'],
    ['TF_BUILD', 'yes'],
    ['BUILDKITE', 'TRUE'],
    ['CIRCLECI', ''],
    ['JENKINS_URL', ''],
    ['BITBUCKET_BUILD_NUMBER', '']
  ])('does not take %s=%j as its system', (variable, value) => {
    expect(detectCiSystem({ [variable]: value }, now).name).toBe('an unknown CI system')
  })

  it('reads the clock only when it falls back, and by default from Date.now', () => {
    const ci = detectCiSystem({})
    expect(Number(ci.run.runId)).toBeCloseTo(Date.now() / 1000, -1)
  })
})

// Each system's flag and the variables it always sets besides: what masking needs to see.
const GENUINE_GITHUB = {
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: '42',
  GITHUB_WORKSPACE: '/home/runner/work/app/app',
  RUNNER_TEMP: '/home/runner/work/_temp'
}
const GENUINE_AZURE = {
  TF_BUILD: 'True',
  AGENT_ID: '7',
  BUILD_BUILDID: '1234',
  SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: 'https://dev.azure.com/org/'
}
const GENUINE_BUILDKITE = { BUILDKITE: 'true', BUILDKITE_BUILD_ID: 'b-1', BUILDKITE_JOB_ID: 'j-1' }

describe('detectCiSystem: masking', () => {
  it.each([
    [GENUINE_GITHUB, '::add-mask::', `::add-mask::${SECRET}`],
    [GENUINE_AZURE, '##vso[task.setsecret]', `##vso[task.setsecret]${SECRET}`]
  ])('hides a secret in %j with one line on stdout', (env, describe, line) => {
    const ci = detectCiSystem(env)
    const masking = ci.masking!
    const lines: string[] = []
    expect(ci.maskingOff).toBeUndefined()
    expect(masking.describe).toBe(describe)
    expect(masking.hide(SECRET, out => lines.push(out))).toBe(true)
    expect(lines).toEqual([line])
  })

  it.each([
    { GITLAB_CI: 'true' },
    { JENKINS_URL: 'x' },
    { CIRCLECI: 'true' },
    { BITBUCKET_BUILD_NUMBER: '1' }
  ])('has no masking in %j', env => {
    expect(detectCiSystem(env).masking).toBeUndefined()
    expect(detectCiSystem(env).maskingOff).toBeUndefined()
  })

  // A masking line prints the secret itself: only a reader that obeys it hides it.
  it.each([
    ['a GitHub flag left in a GitLab job', { ...GENUINE_GITHUB, GITLAB_CI: 'true' }, 'GitLab CI'],
    ['TF_BUILD on Jenkins', { ...GENUINE_AZURE, JENKINS_URL: 'https://ci.example/' }, 'Jenkins'],
    ['GitHub and Azure at once', { ...GENUINE_GITHUB, ...GENUINE_AZURE }, 'GitHub Actions'],
    [
      'a Buildkite job with GitHub signs',
      { ...GENUINE_GITHUB, BUILDKITE: 'true' },
      'GitHub Actions'
    ],
    ['GITHUB_ACTIONS alone', { GITHUB_ACTIONS: 'true' }, 'GitHub Actions'],
    ['GitHub without RUNNER_TEMP', { ...GENUINE_GITHUB, RUNNER_TEMP: '' }, 'GitHub Actions'],
    ['TF_BUILD alone', { TF_BUILD: 'True' }, 'Azure Pipelines'],
    [
      'Azure without its collection',
      { ...GENUINE_AZURE, SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: '' },
      'Azure Pipelines'
    ]
  ])('masks with nothing and prints no secret: %s', (_case, env, assumed) => {
    const ci = detectCiSystem(env)
    const lines: string[] = []
    expect(ci.name).toBe(assumed)
    expect(ci.masking).toBeUndefined()
    expect(ci.maskingOff).toBeDefined()
    expect(
      createMasker(ci, { stdout: l => lines.push(l), stderr: l => lines.push(l) })([SECRET])
    ).toBe(false)
    lines.push(maskingLine(ci, false), maskingLine(ci, undefined))
    expect(lines.filter(line => line.includes(SECRET))).toEqual([])
  })

  describe('on Buildkite', () => {
    const API_KEY = `sk_${'0f'.repeat(32)}`
    let agent: FakeAgent
    let decoy: FakeAgent
    beforeEach(() => {
      agent = installFakeBuildkiteAgent()
      decoy = installFakeBuildkiteAgent()
    })
    afterEach(() => {
      agent.remove()
      decoy.remove()
    })
    // What a job under npx has: the checkout's node_modules/.bin first on PATH, the key in env.
    const job = (extra: Record<string, string>) => ({
      ...GENUINE_BUILDKITE,
      PATH: decoy.path,
      SVC_API_KEY: API_KEY,
      SVC_BASE_URL: 'https://svc.example',
      BUILDKITE_AGENT_JOB_API_SOCKET: '/tmp/job-api.sock',
      BUILDKITE_AGENT_JOB_API_TOKEN: 'job-api-token',
      ...extra
    })

    it('runs the agent at BUILDKITE_BIN_PATH, never the one first on PATH, and never hands it the API key', () => {
      const ci = detectCiSystem(job({ BUILDKITE_BIN_PATH: agent.dir }))
      const lines: string[] = []
      expect(ci.masking!.describe).toBe('buildkite-agent redactor add')
      expect(ci.masking!.hide(SECRET, out => lines.push(out))).toBe(true)
      expect(agent.argv()).toBe('redactor\nadd\n')
      expect(agent.stdin()).toBe(SECRET)
      expect(lines).toEqual([])
      const env = agent.env()!
      expect(Object.keys(env).filter(name => name.startsWith('SVC_'))).toEqual([])
      expect(Object.values(env)).not.toContain(API_KEY)
      expect(env).toMatchObject({
        BUILDKITE_AGENT_JOB_API_SOCKET: '/tmp/job-api.sock',
        BUILDKITE_AGENT_JOB_API_TOKEN: 'job-api-token'
      })
      expect(decoy.ran()).toBe(false)
    })

    it.each([
      ['no BUILDKITE_BIN_PATH', () => ({})],
      ['a relative BUILDKITE_BIN_PATH', () => ({ BUILDKITE_BIN_PATH: 'node_modules/.bin' })],
      ['a BUILDKITE_BIN_PATH without the agent', () => ({ BUILDKITE_BIN_PATH: tmpdir() })]
    ])('with %s: masking is off, says why, and nothing on PATH runs', (_case, extra) => {
      const ci = detectCiSystem(job(extra()))
      expect(ci.masking).toBeUndefined()
      expect(ci.maskingOff).toBeDefined()
      expect(createMasker(ci, { stdout: () => {}, stderr: () => {} })([SECRET])).toBe(false)
      expect(decoy.ran()).toBe(false)
    })

    it('refuses an agent file that is not executable', () => {
      chmodSync(join(agent.dir, 'buildkite-agent'), 0o644)
      const ci = detectCiSystem(job({ BUILDKITE_BIN_PATH: agent.dir }))
      expect(ci.masking).toBeUndefined()
      expect(agent.ran()).toBe(false)
    })

    it('reports failure when the agent exits with 1 (an agent without redactor)', () => {
      const failing = installFakeBuildkiteAgent(1)
      try {
        const ci = detectCiSystem(job({ BUILDKITE_BIN_PATH: failing.dir }))
        expect(ci.masking!.hide(SECRET, () => {})).toBe(false)
        expect(failing.argv()).toBe('redactor\nadd\n')
      } finally {
        failing.remove()
      }
    })
  })
})

describe('detectCiSystem: the run `share` binds to', () => {
  const GITHUB_RUN = { ...GENUINE_GITHUB, GITHUB_REPOSITORY: 'octo/web-shop' }
  const GITLAB_PIPELINE = {
    GITLAB_CI: 'true',
    CI_PROJECT_PATH: 'group/sub/app',
    CI_PIPELINE_ID: '900',
    CI_JOB_ID: '77'
  }

  it('is GITHUB_REPOSITORY and GITHUB_RUN_ID on a confirmed GitHub runner', () => {
    expect(detectCiSystem({ ...GITHUB_RUN, GITHUB_RUN_ATTEMPT: '3' })).toMatchObject({
      shareScope: {
        system: 'github',
        repository: 'octo/web-shop',
        runId: '42',
        variables: 'GITHUB_REPOSITORY and GITHUB_RUN_ID'
      }
    })
  })

  it('is CI_PROJECT_PATH and CI_PIPELINE_ID in a GitLab job, whichever job of the pipeline', () => {
    const first = detectCiSystem(GITLAB_PIPELINE)
    const other = detectCiSystem({ ...GITLAB_PIPELINE, CI_JOB_ID: '78' })
    expect(first.shareScope).toEqual({
      system: 'gitlab',
      repository: 'group/sub/app',
      runId: '900',
      variables: 'CI_PROJECT_PATH and CI_PIPELINE_ID'
    })
    expect(other.shareScope).toEqual(first.shareScope)
    expect(first.shareOff).toBeUndefined()
  })

  it.each([
    ['Jenkins', { JENKINS_URL: 'https://ci.example/', JOB_NAME: 'app', BUILD_NUMBER: '8' }],
    ['Buildkite', { ...GENUINE_BUILDKITE, BUILDKITE_PIPELINE_SLUG: 'app' }],
    ['Azure Pipelines', { ...GENUINE_AZURE, BUILD_REPOSITORY_NAME: 'org/app' }],
    ['CircleCI', { CIRCLECI: 'true', CIRCLE_PROJECT_REPONAME: 'app', CIRCLE_BUILD_NUM: '3' }],
    ['no CI system', { PATH: '/bin' }],
    // GitLab's variable names on another system are not GitLab.
    ['GitLab variables without GITLAB_CI', { ...GITLAB_PIPELINE, GITLAB_CI: 'false' }]
  ])('is absent on %s, with nothing to explain', (_case, env) => {
    const ci = detectCiSystem(env)
    expect(ci.shareScope).toBeUndefined()
    expect(ci.shareOff).toBeUndefined()
  })

  it.each([
    [
      'GitHub without GITHUB_REPOSITORY',
      GENUINE_GITHUB,
      'GITHUB_ACTIONS is set but GITHUB_REPOSITORY, which GitHub Actions always sets, is not'
    ],
    [
      'GitHub without its workspace and temp folder',
      { ...GITHUB_RUN, GITHUB_WORKSPACE: '', RUNNER_TEMP: '' },
      'GITHUB_ACTIONS is set but GITHUB_WORKSPACE, RUNNER_TEMP, which GitHub Actions always sets, are not'
    ],
    [
      'GitLab with a blank pipeline id',
      { ...GITLAB_PIPELINE, CI_PIPELINE_ID: ' ' },
      'GITLAB_CI is set but CI_PIPELINE_ID, which GitLab CI always sets, is not'
    ],
    [
      'GitLab without CI_JOB_ID',
      { ...GITLAB_PIPELINE, CI_JOB_ID: '' },
      'GITLAB_CI is set but CI_JOB_ID, which GitLab CI always sets, is not'
    ],
    [
      'a GitHub flag left in a GitLab job',
      { ...GITLAB_PIPELINE, ...GITHUB_RUN },
      'GITHUB_ACTIONS (GitHub Actions) is set too, so the signs disagree'
    ],
    [
      'a GitLab job on a Jenkins agent',
      { ...GITLAB_PIPELINE, JENKINS_HOME: '/var/jenkins' },
      'JENKINS_URL or JENKINS_HOME (Jenkins) is set too, so the signs disagree'
    ]
  ])('is absent for %s, and says why', (_case, env, why) => {
    const ci = detectCiSystem(env)
    expect(ci.shareScope).toBeUndefined()
    expect(ci.shareOff).toBe(why)
  })
})
