import { detectCiSystem, type CiSystem } from '../../src/cli/ci-system.js'
import { createMasker, maskingLine } from '../../src/cli/masking.js'
import { installFakeBuildkiteAgent } from '../helpers/fake-buildkite-agent.js'

const GITHUB = {
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: '42',
  GITHUB_WORKSPACE: '/w',
  RUNNER_TEMP: '/t'
}
const AZURE = {
  TF_BUILD: 'True',
  AGENT_ID: '7',
  BUILD_BUILDID: '1234',
  SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: 'https://dev.azure.com/org/'
}
const buildkite = (binPath: string) => ({
  BUILDKITE: 'true',
  BUILDKITE_BUILD_ID: 'b-1',
  BUILDKITE_JOB_ID: 'j-1',
  BUILDKITE_BIN_PATH: binPath
})

function terminal() {
  const lines = { stdout: [] as string[], stderr: [] as string[] }
  return {
    lines,
    stdout: (line: string) => lines.stdout.push(line),
    stderr: (line: string) => lines.stderr.push(line)
  }
}

/** A system whose masking answers as told, recording what it was asked to hide. */
function fakeSystem(works: (secret: string) => boolean): CiSystem & { asked: string[] } {
  const asked: string[] = []
  return {
    name: 'Fake CI',
    run: {},
    asked,
    masking: { describe: 'fake-mask', hide: secret => (asked.push(secret), works(secret)) }
  }
}

describe('createMasker', () => {
  it('writes one ::add-mask:: line per secret on GitHub Actions, each secret once', () => {
    const out = terminal()
    const mask = createMasker(detectCiSystem(GITHUB), out)
    expect(mask(['key-1', 'token-2', 'key-1'])).toBe(true)
    expect(mask(['token-2', 'token-3'])).toBe(true)
    expect(out.lines.stdout).toEqual([
      '::add-mask::key-1',
      '::add-mask::token-2',
      '::add-mask::token-3'
    ])
    expect(out.lines.stderr).toEqual([])
  })

  it('writes ##vso[task.setsecret] lines on Azure Pipelines', () => {
    const out = terminal()
    expect(createMasker(detectCiSystem(AZURE), out)(['s3cret'])).toBe(true)
    expect(out.lines.stdout).toEqual(['##vso[task.setsecret]s3cret'])
  })

  it('prints nothing and answers false where the system cannot hide a value', () => {
    const out = terminal()
    const mask = createMasker(detectCiSystem({ GITLAB_CI: 'true' }), out)
    expect(mask(['s3cret'])).toBe(false)
    expect(out.lines).toEqual({ stdout: [], stderr: [] })
  })

  it('answers false when any secret could not be hidden, and still tries every one', () => {
    const ci = fakeSystem(secret => secret !== 'bad')
    expect(createMasker(ci, terminal())(['a', 'bad', 'c'])).toBe(false)
    expect(ci.asked).toEqual(['a', 'bad', 'c'])
  })

  it('answers true for no secret', () => {
    expect(
      createMasker(
        fakeSystem(() => false),
        terminal()
      )([])
    ).toBe(true)
  })

  it('hands each secret to buildkite-agent once, through stdin', () => {
    const agent = installFakeBuildkiteAgent()
    try {
      const out = terminal()
      const mask = createMasker(detectCiSystem(buildkite(agent.dir)), out)
      expect(mask(['sk_key', 'sk_key'])).toBe(true)
      expect(agent.argv()).toBe('redactor\nadd\n')
      expect(agent.stdin()).toBe('sk_key')
      expect(out.lines.stdout).toEqual([])
    } finally {
      agent.remove()
    }
  })
})

describe('maskingLine', () => {
  it.each([
    [
      GITHUB,
      'Masking: GitHub Actions hides the API key and every credential through ::add-mask::.'
    ],
    [
      AZURE,
      'Masking: Azure Pipelines hides the API key and every credential through ##vso[task.setsecret].'
    ]
  ])('says which masking applied in %j', (env, line) => {
    expect(maskingLine(detectCiSystem(env), true)).toBe(line)
  })

  it.each([
    [{ GITLAB_CI: 'true' }, 'GitLab CI'],
    [{ JENKINS_URL: 'https://ci.example/' }, 'Jenkins'],
    [{ CIRCLECI: 'true' }, 'CircleCI'],
    [{ BITBUCKET_BUILD_NUMBER: '3' }, 'Bitbucket Pipelines'],
    [{}, 'an unknown CI system']
  ])('says %j cannot hide values, whatever the masker answered', (env, name) => {
    const line = `Masking: ${name} cannot hide values made during a job, so tunnel-credentials never prints a secret.`
    expect(maskingLine(detectCiSystem(env), false)).toBe(line)
    expect(maskingLine(detectCiSystem(env), true)).toBe(line)
  })

  it('says Buildkite masking applied when the agent took the secret', () => {
    const agent = installFakeBuildkiteAgent()
    try {
      const ci = detectCiSystem(buildkite(agent.dir))
      expect(maskingLine(ci, createMasker(ci, terminal())(['sk_key']))).toBe(
        'Masking: Buildkite hides the API key and every credential through buildkite-agent redactor add.'
      )
    } finally {
      agent.remove()
    }
  })

  it('says Buildkite masking did not work when the agent exits with 1', () => {
    const agent = installFakeBuildkiteAgent(1)
    try {
      const ci = detectCiSystem(buildkite(agent.dir))
      expect(maskingLine(ci, createMasker(ci, terminal())(['sk_key']))).toBe(
        'Masking: buildkite-agent redactor add did not work here, so Buildkite hides nothing; tunnel-credentials never prints a secret.'
      )
      expect(agent.argv()).not.toContain('sk_key')
    } finally {
      agent.remove()
    }
  })

  it('says masking is off, and which system it assumed, when there is no agent where Buildkite says', () => {
    const ci = detectCiSystem(buildkite('/nonexistent/bin'))
    expect(ci.masking).toBeUndefined()
    expect(maskingLine(ci, createMasker(ci, terminal())(['sk_key']))).toMatch(
      /^Masking: off, since .*BUILDKITE_BIN_PATH.*assumed Buildkite/
    )
  })

  it('says masking is off, and which system it assumed, when the signs disagree', () => {
    const ci = detectCiSystem({ ...GITHUB, GITLAB_CI: 'true' })
    const line = maskingLine(ci, createMasker(ci, terminal())(['sk_key']))
    expect(line).toMatch(/^Masking: off, since GITHUB_ACTIONS .* assumed GitLab CI/)
    expect(line).not.toContain('sk_key')
  })
})

describe('the masking line before any secret is known', () => {
  it('says credentials are hidden as they arrive, on a system that can', () => {
    expect(
      maskingLine(
        {
          name: 'Buildkite',
          run: {},
          masking: { describe: 'buildkite-agent redactor add', hide: () => true }
        },
        undefined
      )
    ).toBe(
      'Masking: Buildkite hides every credential through buildkite-agent redactor add as it arrives.'
    )
  })
})
