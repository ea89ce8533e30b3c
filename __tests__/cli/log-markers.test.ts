/**
 * Outside text reaches the command-line tool's lines by four ways: the work folder and file
 * paths, option values quoted in messages, the service's answer fields, and the summary's rows.
 * On each, no line printed (stdout or stderr) holds anything a supported CI system's log reader
 * obeys, judged by the reader models, not by the wording.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { cliHost } from '../../src/cli/host.js'
import { withPrintableSummary } from '../../src/core/step-writes.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { commandsObeyedIn } from '../helpers/log-readers.js'

// Azure sets a pipeline variable from it (the key's destination); GitHub and Buildkite obey the rest.
const AZURE = '##vso[task.setvariable variable=SVC_BASE_URL]https://evil.example'
const HOSTILE = [
  AZURE,
  '##VSO[task.prependpath]/tmp/evil',
  '##[group]forged',
  '::add-mask::x',
  '--- forged group'
]

let service: RunningService
let work: string
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-markers-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

async function cli(args: string[], extra: Record<string, string> = {}) {
  const lines: string[] = []
  const code = await main(
    args,
    {
      PATH: process.env.PATH,
      SVC_API_KEY: service.seed.provisionKey,
      SVC_BASE_URL: service.baseUrl,
      SVC_PROJECT: service.seed.project,
      SVC_ENV_FILE: join(work, 'tunnel.env'),
      ...extra
    },
    { stdout: line => lines.push(line), stderr: line => lines.push(line) }
  )
  return { code, lines }
}

describe('file paths in messages', () => {
  it('a folder named with markers: provision, a second provision, and revoke obey nothing', async () => {
    const folder = join(work, `x${AZURE} ##[group]g`, '--- y')
    mkdirSync(folder, { recursive: true })
    const files = [
      '--variables-file',
      join(folder, 'tunnel.env'),
      '--state-file',
      join(folder, 'state.json'),
      '--work-dir',
      folder
    ]
    const first = await cli(['provision', ...files])
    expect(first.code).toBe(0)
    const second = await cli(['provision', ...files])
    expect(second.code).toBe(1)
    const revoked = await cli(['revoke', ...files])
    expect(revoked.code).toBe(0)
    expect(commandsObeyedIn([...first.lines, ...second.lines, ...revoked.lines])).toEqual([])
  })

  it.each(['--work-dir', '--variables-file', '--state-file'])(
    'a %s in a folder that does not exist is named without obeying',
    async flag => {
      const missing = join(work, AZURE, 'f')
      const ran = await cli(['provision', flag, missing])
      expect(ran.code).toBe(1)
      expect(commandsObeyedIn(ran.lines)).toEqual([])
    }
  )
})

describe('option values quoted in messages', () => {
  it.each(
    [
      '--project',
      '--environment',
      '--ttl-minutes',
      '--tunnel-user',
      '--expose',
      '--base-url'
    ].flatMap(flag => HOSTILE.map(value => [flag, value]))
  )('%s %j: refused or used, no line printed obeys it', async (flag, value) => {
    const ran = await cli(['provision', flag, value])
    expect(commandsObeyedIn(ran.lines)).toEqual([])
  })
})

describe("the service's answer fields", () => {
  it.each([
    // No blank: the slug's own check refused those already.
    ['project_slug', 'web##vso[build.updatebuildnumber]evil'],
    ['project_slug', '##vso[task.prependpath]/tmp/evil'],
    ['tunnel_user', 'ab12c##vso[task.setsecret]x'],
    ['client_id', 'c##vso[task.prependpath]/tmp/evil']
  ])('%s %j is refused, and nothing printed obeys it', async (field, value) => {
    service.injectFault({
      kind: 'hostile',
      endpoint: 'credential-provision',
      override: { [field]: value }
    })
    const ran = await cli(['provision'])
    expect(ran.code).toBe(1)
    expect(commandsObeyedIn(ran.lines)).toEqual([])
  })
})

describe('summary rows', () => {
  it('are printed by the command-line host with nothing a reader obeys', () => {
    const lines: string[] = []
    const terminal = { stdout: (line: string) => lines.push(line), stderr: () => undefined }
    const host = cliHost({
      options: { read: () => '', label: name => `--${name}` },
      terminal,
      ci: { name: 'test', run: {} },
      mask: () => undefined,
      state: { save: () => undefined, load: () => '' },
      workDir: work,
      requestLog: join(work, 'requests.har'),
      tunnelEnd: {},
      env: {},
      deliver: () => undefined
    })
    // What the core's provision hands over: the rows made printable once, for both hosts.
    host.handOver(
      withPrintableSummary({
        variables: {},
        outputs: {},
        summary: [
          {
            heading: 'Tunnel credentials',
            columns: ['Field', 'Value'],
            rows: HOSTILE.map(value => [value, value])
          }
        ]
      })
    )
    expect(lines.length).toBe(HOSTILE.length + 1)
    expect(commandsObeyedIn(lines)).toEqual([])
  })
})
