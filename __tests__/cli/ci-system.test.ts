import { hostname } from 'node:os'
import { detectCiSystem } from '../../src/cli/ci-system.js'
import { installFakeBuildkiteAgent } from '../helpers/fake-buildkite-agent.js'

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

describe('detectCiSystem: masking', () => {
  it.each([
    [{ GITHUB_ACTIONS: 'true' }, '::add-mask::', `::add-mask::${SECRET}`],
    [{ TF_BUILD: 'true' }, '##vso[task.setsecret]', `##vso[task.setsecret]${SECRET}`]
  ])('hides a secret in %j with one line on stdout', (env, describe, line) => {
    const masking = detectCiSystem(env).masking!
    const lines: string[] = []
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
  })

  describe('on Buildkite', () => {
    const buildkite = (path: string) => detectCiSystem({ BUILDKITE: 'true', PATH: path }).masking!

    it('hands the secret to buildkite-agent redactor add on stdin, never in its arguments', () => {
      const agent = installFakeBuildkiteAgent()
      try {
        const lines: string[] = []
        const masking = buildkite(agent.path)
        expect(masking.describe).toBe('buildkite-agent redactor add')
        expect(masking.hide(SECRET, out => lines.push(out))).toBe(true)
        expect(agent.argv()).toBe('redactor\nadd\n')
        expect(agent.stdin()).toBe(SECRET)
        expect(lines).toEqual([])
      } finally {
        agent.remove()
      }
    })

    it('reports failure when the agent exits with 1 (an agent without redactor)', () => {
      const agent = installFakeBuildkiteAgent(1)
      try {
        expect(buildkite(agent.path).hide(SECRET, () => {})).toBe(false)
        expect(agent.argv()).toBe('redactor\nadd\n')
      } finally {
        agent.remove()
      }
    })

    it('reports failure when there is no buildkite-agent on PATH', () => {
      expect(buildkite('/nonexistent/bin').hide(SECRET, () => {})).toBe(false)
    })
  })
})
