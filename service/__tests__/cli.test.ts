/** `npm run service` as a person or a script meets it: a spawned process and its stdout. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { parseCliArgs } from '../cli-args.js'
import { DEFAULT_SEED } from '../seed.js'

// tsx's own entry, run by this Node: node_modules/.bin/tsx is a shell script (tsx.cmd on
// Windows), which spawn() cannot start there without a shell.
const tsxDir = join(process.cwd(), 'node_modules', 'tsx')
const TSX_CLI = join(
  tsxDir,
  (JSON.parse(readFileSync(join(tsxDir, 'package.json'), 'utf8')) as { bin: string }).bin
)
const CLI = join(process.cwd(), 'service', 'cli.ts')
const EXTRA_KEY = `sk_${'ab'.repeat(32)}`

interface Run {
  child: ChildProcessWithoutNullStreams
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, [TSX_CLI, CLI, ...args], { cwd: process.cwd() })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)))
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

async function waitForLine(output: () => string, pattern: RegExp): Promise<string> {
  for (let waited = 0; waited < 8000; waited += 25) {
    const line = output()
      .split('\n')
      .find(candidate => pattern.test(candidate))
    if (line !== undefined) return line
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  throw new Error(`no line matching ${pattern} in:\n${output()}`)
}

describe('the service command', () => {
  let service: Run | undefined

  afterAll(async () => {
    if (service !== undefined && service.child.exitCode === null) {
      service.child.kill('SIGKILL')
      await service.exited
    }
  })

  // Windows has no SIGTERM to catch: kill() ends the process at once, with no message.
  const itWithSignals = process.platform === 'win32' ? it.skip : it

  itWithSignals(
    'prints the base URL alone on a line and every seed, serves, and stops on SIGTERM',
    async () => {
      service = run(['--port', '0', '--api-key', EXTRA_KEY, '--project', 'second-app'])
      const baseUrl = await waitForLine(service.stdout, /\/functions\/v1$/)
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1$/)
      await waitForLine(service.stdout, /^Press Ctrl\+C/)
      const lines = service.stdout().split('\n')
      expect(lines).toEqual(
        expect.arrayContaining([
          `api key with cicd:provision (all scopes): ${DEFAULT_SEED.provisionKey}`,
          `api key without cicd:provision: ${DEFAULT_SEED.keyWithoutScope}`,
          `api key (all scopes, from --api-key): ${EXTRA_KEY}`,
          `api key of a second owner (all scopes; cannot touch the first owner's credentials): ${DEFAULT_SEED.secondOwnerKey}`,
          `project of the second owner: ${DEFAULT_SEED.secondOwnerProject}`,
          `project: ${DEFAULT_SEED.project}`,
          'project (from --project): second-app',
          `jwt: ${DEFAULT_SEED.jwt}`,
          expect.stringMatching(/^tunnel: 127\.0\.0\.1:\d+$/)
        ])
      )
      // The template a user pastes into url-template names the front's own port.
      const frontPort = /^tunnel http front: http:\/\/127\.0\.0\.1:(\d+) /m.exec(
        service.stdout()
      )?.[1]
      expect(lines).toContain(`tunnel url-template: http://{name}-{user}.localhost:${frontPort}`)
      expect(lines).toContain(
        'tunnel limits: 5 forwards per tunnel user, any number of sessions per credential'
      )

      const response = await fetch(`${baseUrl}/credential-provision`, {
        method: 'POST',
        headers: { 'X-API-Key': EXTRA_KEY },
        body: JSON.stringify({ project: 'second-app' })
      })
      expect(response.status).toBe(200)

      service.child.kill('SIGTERM')
      expect(await service.exited).toBe(0)
      expect(service.stdout()).toContain('Received SIGTERM, stopping.')
    }
  )

  itWithSignals(
    '--edge: prints the edge, its CA and url-template; the edge reaches the front; SIGTERM removes it',
    async () => {
      const withEdge = run(['--edge'])
      try {
        await waitForLine(withEdge.stdout, /^Press Ctrl\+C/)
        const output = withEdge.stdout()
        const caFile = /^edge ca: (.+)$/m.exec(output)?.[1] ?? ''
        const template = /^edge url-template: (.+)$/m.exec(output)?.[1] ?? ''
        // The stand-in's default tunnel_fqdn, localhost, on the edge's own port.
        expect(template).toMatch(/^https:\/\/\{name\}-\{user\}\.localhost:\d+$/)
        const port = Number(/:(\d+)$/.exec(template)?.[1])
        // Nothing is forwarded: the front's own 502 names the Host the edge rewrote.
        const answer = await new Promise<string>((resolve, reject) => {
          const req = httpsRequest(
            {
              host: '127.0.0.1',
              port,
              servername: 'web-abcde.localhost',
              headers: { host: `web-abcde.localhost:${port}` },
              ca: readFileSync(caFile, 'utf8'),
              agent: false
            },
            res => {
              let body = ''
              res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
              res.on('end', () => resolve(`${res.statusCode} ${body}`))
            }
          )
          req.on('error', reject)
          req.end()
        })
        const internal = /Host rewritten to <name>-<user>\.(\S+)\)$/m.exec(output)?.[1]
        expect(answer).toBe(`502 No tunnel is open for web-abcde.${internal}\n`)
        withEdge.child.kill('SIGTERM')
        expect(await withEdge.exited).toBe(0)
        expect(existsSync(caFile)).toBe(false)
      } finally {
        if (withEdge.child.exitCode === null) withEdge.child.kill('SIGKILL')
      }
    },
    60_000
  )

  it("answers in the product's shape and names hosts as a dedicated server when asked", async () => {
    service = run([
      '--answer-shape',
      'product',
      '--tunnel-fqdn',
      'team.localhost',
      '--ownership=dedicated',
      '--one-session-per-credential',
      '--max-forwards-per-user',
      '7'
    ])
    const baseUrl = await waitForLine(service.stdout, /\/functions\/v1$/)
    await waitForLine(service.stdout, /^Press Ctrl\+C/)
    const lines = service.stdout().split('\n')
    const frontPort = /^tunnel http front: http:\/\/127\.0\.0\.1:(\d+) /m.exec(
      service.stdout()
    )?.[1]
    expect(lines).toEqual(
      expect.arrayContaining([
        'answer shape: product',
        'public urls: <name>.team.localhost (ownership dedicated, user not appended)',
        `tunnel url-template: http://{name}.team.localhost:${frontPort}`,
        'tunnel limits: 7 forwards per tunnel user, one session per credential'
      ])
    )
    const response = await fetch(`${baseUrl}/credential-provision`, {
      method: 'POST',
      headers: { 'X-API-Key': DEFAULT_SEED.provisionKey },
      body: JSON.stringify({ project: 'octo/app', ttl_minutes: 0 })
    })
    expect(await response.json()).toEqual({
      tunnel_client_id: expect.any(String),
      tunnel_client_secret: expect.any(String),
      tunnel_fqdn: 'team.localhost',
      tunnel_host: '127.0.0.1',
      tunnel_port: expect.any(Number),
      ownership_type: 'dedicated',
      append_user_to_subdomain: false
    })
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
  })

  it.each([
    [['--port', 'eighty'], '--port must be a whole number from 0 to 65535, got "eighty"'],
    [['--api-key', 'sk_short'], '--api-key must be sk_ followed by 64'],
    [['--verbose'], 'Unknown option "--verbose"']
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const failed = run(args)
    expect(await failed.exited).toBe(2)
    expect(failed.stderr()).toContain(message)
    expect(failed.stdout()).toBe('')
  })
})

describe('parseCliArgs', () => {
  it('reads every flag, in both --flag value and --flag=value forms', () => {
    expect(
      parseCliArgs([
        '--port=8080',
        '--api-key',
        EXTRA_KEY,
        '--project',
        'a',
        '--project=b',
        '--jwt',
        'session',
        '--tunnel-host',
        'tunnel.test',
        '--tunnel-port',
        '4022',
        '--fault',
        '{"kind":"500","count":2}',
        '--answer-shape',
        'product',
        '--tunnel-fqdn=CICD.eu1.localhost',
        '--ownership',
        'self-hosted',
        '--append-user-to-subdomain',
        'true',
        '--one-session-per-credential',
        '--max-forwards-per-user=6'
      ])
    ).toEqual({
      help: false,
      options: {
        port: 8080,
        apiKeys: [EXTRA_KEY],
        projects: ['a', 'b'],
        jwts: ['session'],
        tunnelHost: 'tunnel.test',
        tunnelPort: 4022,
        faults: [{ kind: '500', count: 2 }],
        answerShape: 'product',
        tunnelFqdn: 'cicd.eu1.localhost',
        ownership: 'self-hosted',
        appendUserToSubdomain: true,
        oneSessionPerCredential: true,
        maxForwardsPerUser: 6
      },
      edge: false
    })
  })

  it('defaults to port 0 and no extras', () => {
    expect(parseCliArgs([])).toEqual({
      help: false,
      options: { port: 0, apiKeys: [], projects: [], jwts: [], faults: [] },
      edge: false
    })
    expect(parseCliArgs(['--help'])).toEqual({ help: true })
    expect(parseCliArgs(['--edge'])).toEqual({
      help: false,
      options: { port: 0, apiKeys: [], projects: [], jwts: [], faults: [] },
      edge: true
    })
  })

  it.each([
    [['--port', '65536'], '--port must be a whole number from 0 to 65535, got "65536"'],
    [['--port', '-1'], '--port must be a whole number from 0 to 65535, got "-1"'],
    [['--tunnel-port', '0'], '--tunnel-port must be a whole number from 1 to 65535, got "0"'],
    [['--api-key', `sk_${'AB'.repeat(32)}`], '--api-key must be sk_ followed by 64'],
    [['--project'], '--project needs a value'],
    [['--project', ''], '--project must not be empty'],
    [['--fault', '{"kind":"nope"}'], '--fault: Fault kind must be one of'],
    [['--fault', 'nope'], '--fault must be a JSON object, got "nope"'],
    [['extra'], 'Unknown option "extra"'],
    [['--answer-shape', 'xml'], '--answer-shape must be spec or product, got "xml"'],
    [['--tunnel-fqdn', 'a..b'], '--tunnel-fqdn must be a host name (DNS labels), got "a..b"'],
    [['--tunnel-fqdn', 'a_b.test'], '--tunnel-fqdn must be a host name'],
    [['--ownership', 'rented'], '--ownership must be shared, dedicated, self-hosted, got "rented"'],
    [['--append-user-to-subdomain', 'yes'], '--append-user-to-subdomain must be true or false'],
    [['--max-forwards-per-user', '0'], '--max-forwards-per-user must be a whole number from 1'],
    [['--max-forwards-per-user', '2.5'], 'from 1 to 9999, got "2.5"'],
    [['--max-forwards-per-user'], '--max-forwards-per-user needs a value']
  ])('refuses %j', (args, message) => {
    expect(() => parseCliArgs(args)).toThrow(message)
  })
})
