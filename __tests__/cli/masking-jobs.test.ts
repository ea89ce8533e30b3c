/**
 * Whole commands in environments that mix the signs of two CI systems, or show one system's flag
 * without its confirmations: no line printed holds the API key or the token, since a masking line
 * prints the secret itself where its reader does not obey it. A genuine GitHub job still masks.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { installFakeBuildkiteAgent } from '../helpers/fake-buildkite-agent.js'

const GITHUB = {
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: '42',
  GITHUB_WORKSPACE: '/home/runner/work/app/app',
  RUNNER_TEMP: '/home/runner/work/_temp'
}
const AZURE = {
  TF_BUILD: 'True',
  AGENT_ID: '7',
  BUILD_BUILDID: '1234',
  SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: 'https://dev.azure.com/org/'
}

let service: RunningService
let work: string
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-masking-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

async function provisionIn(ci: Record<string, string>) {
  const lines: string[] = []
  const code = await main(
    ['provision'],
    {
      PATH: process.env.PATH,
      SVC_API_KEY: service.seed.provisionKey,
      SVC_BASE_URL: service.baseUrl,
      SVC_PROJECT: service.seed.project,
      SVC_ENV_FILE: join(work, 'tunnel.env'),
      ...ci
    },
    { stdout: line => lines.push(line), stderr: line => lines.push(line) }
  )
  const token = /TUNNEL_TOKEN='?([^'\s]+)/.exec(readFileSync(join(work, 'tunnel.env'), 'utf8'))![1]
  return { code, lines, secrets: [service.seed.provisionKey, token] }
}

it.each([
  ['GITHUB_ACTIONS left in a GitLab job', { ...GITHUB, GITLAB_CI: 'true', CI_JOB_ID: '9' }],
  ['TF_BUILD on Jenkins', { ...AZURE, JENKINS_URL: 'https://ci.example/' }],
  ['GitHub and Azure at once', { ...GITHUB, ...AZURE }],
  ['GITHUB_ACTIONS alone', { GITHUB_ACTIONS: 'true' }],
  ['TF_BUILD alone', { TF_BUILD: 'True' }]
])('%s: no line holds the API key or the token', async (_case, ci) => {
  const ran = await provisionIn(ci)
  expect(ran.code).toBe(0)
  expect(ran.lines.filter(line => ran.secrets.some(secret => line.includes(secret)))).toEqual([])
})

it.each([
  ['GitHub', GITHUB, '::add-mask::'],
  ['Azure', AZURE, '##vso[task.setsecret]']
])('a genuine %s job masks the API key and the token', async (_name, ci, command) => {
  const ran = await provisionIn(ci)
  expect(ran.code).toBe(0)
  expect(ran.lines).toEqual(
    expect.arrayContaining(ran.secrets.map(secret => `${command}${secret}`))
  )
})

it('a Buildkite job under npx: the agent first on PATH never runs, and the one the agent names never gets the key', async () => {
  const decoy = installFakeBuildkiteAgent()
  const agent = installFakeBuildkiteAgent()
  try {
    const ran = await provisionIn({
      BUILDKITE: 'true',
      BUILDKITE_BUILD_ID: 'b-1',
      BUILDKITE_JOB_ID: 'j-1',
      BUILDKITE_BIN_PATH: agent.dir,
      PATH: decoy.path
    })
    expect(ran.code).toBe(0)
    expect(decoy.ran()).toBe(false)
    expect(agent.ran()).toBe(true)
    expect(Object.keys(agent.env()!).filter(name => name.startsWith('SVC_'))).toEqual([])
    expect(Object.values(agent.env()!)).not.toContain(service.seed.provisionKey)
  } finally {
    decoy.remove()
    agent.remove()
  }
})
