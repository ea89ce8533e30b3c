/**
 * docs/other-ci.md is tested as users copy it: the ```bash test=NAME blocks are run
 * with bash (strict mode, as most CI systems run scripts) against the local
 * credential service, and every pipeline on the page must contain those blocks
 * unchanged. A recipe that drifts from the service fails here.
 */
import { execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { startCredentialService, type RunningService } from '../service/server.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const doc = readFileSync(join(root, 'docs', 'other-ci.md'), 'utf8')

/** The bodies of the fenced blocks whose info string has `key=value`, by value, in order. */
function fencedBlocks(markdown: string, key: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const fence = /^```\w+ ([^\n]*)\n([\s\S]*?)^```$/gm
  for (const [, info, body] of markdown.matchAll(fence)) {
    const value = new RegExp(`(?:^|\\s)${key}=(\\S+)`).exec(info)?.[1]
    if (value !== undefined) found.set(value, [...(found.get(value) ?? []), body])
  }
  return found
}

const tested = new Map([...fencedBlocks(doc, 'test')].map(([name, [body]]) => [name, body]))
const pipelines = fencedBlocks(doc, 'pipeline')
const block = (name: string): string => {
  const body = tested.get(name)
  if (body === undefined) throw new Error(`docs/other-ci.md has no \`\`\`bash test=${name} block`)
  return body
}

/** Lines without indentation or blank lines, so a block matches however deep it is nested. */
const normalize = (text: string): string =>
  text
    .split('\n')
    .map(line => line.trim())
    .filter(line => line !== '')
    .join('\n')

type Run = { code: number | null; stdout: string; stderr: string }

/**
 * Runs a script with bash -e -o pipefail in `cwd`, with only the given environment and PATH. It
 * ends, as a CI job does, when every process holding its output has closed it; after `limitMs`
 * it gives up and says so in `stderr`, with `code` null.
 */
function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
  flags = '-eo',
  limitMs?: number
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [flags, 'pipefail', '-c', script], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env }
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => (stdout += chunk))
    child.stderr.on('data', chunk => (stderr += chunk))
    child.on('error', reject)
    const limit =
      limitMs === undefined
        ? undefined
        : setTimeout(() => {
            child.stdout.destroy()
            child.stderr.destroy()
            resolve({ code: null, stdout, stderr: `${stderr}[still holding its output]` })
          }, limitMs)
    child.on('close', code => {
      clearTimeout(limit)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * tunnel.env as the recipes promise to write it: one `NAME='value'` line per variable, the value
 * single-quoted, a quote inside it written as '"'"'. Parsed here without a shell, so a loader
 * that reads a value differently from what the file holds is caught.
 */
function readEnvFile(path: string): Record<string, string> {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n')
  return Object.fromEntries(
    lines.map(line => {
      const match = /^(SVC_[A-Z_]+)='((?:[^']|'"'"')*)'$/.exec(line)
      if (match === null) throw new Error(`tunnel.env has a line that is not NAME='value': ${line}`)
      return [match[1], match[2].replaceAll(`'"'"'`, "'")]
    })
  )
}

/** The stand-in's HTTP front, asked for the tunnel `<name>-<user>` as the Host. */
function throughTunnel(
  tunneled: RunningService,
  user: string,
  name = 'app'
): Promise<{ status: number; body: string }> {
  const front = tunneled.tunnel!
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: front.frontPort,
        agent: false,
        setHost: false,
        headers: { host: `${name}-${user}.localhost:${front.frontPort}` }
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      }
    )
    req.on('error', reject)
    req.end()
  })
}

let service: RunningService
let dir: string
let settings: Record<string, string>

beforeAll(async () => {
  service = await startCredentialService({ port: 0 })
})
afterAll(async () => {
  await service.close()
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'recipes-'))
  settings = {
    SVC_BASE_URL: service.baseUrl,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_PROJECT: service.seed.project
  }
  service.resetFaults()
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** What the service itself answers to a provisioning request: the message a recipe must show. */
async function serviceError(apiKey: string, body: object): Promise<string> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  const { error } = (await response.json()) as { error: string }
  return `credential-provision failed: HTTP ${response.status}: ${error}`
}

async function provision(env: Record<string, string> = {}): Promise<Record<string, string>> {
  const run = await bash(block('provision'), dir, { ...settings, ...env })
  expect(run).toMatchObject({ code: 0, stderr: '' })
  return readEnvFile(join(dir, 'tunnel.env'))
}

const tokenOf = (user: string) => service.tokens().find(t => t.tunnel_user === user)

describe('docs/other-ci.md', () => {
  it('has the tested blocks', () => {
    expect([...tested.keys()].sort()).toEqual([
      'bootstrap',
      'cleanup',
      'connect',
      'disconnect',
      'export-azure',
      'export-buildkite',
      'export-circleci',
      'load',
      'provision',
      'ssh-key-cleanup',
      'ssh-key-connect',
      'ssh-key-upload'
    ])
  })

  // Jenkins runs the shell inside Groovy ''' strings, where a backslash is an escape.
  it('has no backslash in the tested shell', () => {
    expect([...tested.values()].filter(body => body.includes('\\'))).toEqual([])
  })

  const exportBlock: Record<string, string> = {
    gitlab: 'load',
    jenkins: 'load',
    circleci: 'export-circleci',
    azure: 'export-azure',
    bitbucket: 'load',
    buildkite: 'export-buildkite'
  }
  it.each(Object.entries(exportBlock))(
    'the %s pipeline contains the tested shell unchanged',
    (system, exporter) => {
      const text = normalize((pipelines.get(system) ?? []).join('\n'))
      expect(text).toContain(normalize(block('provision')))
      expect(text).toContain(normalize(block(exporter)))
      expect(text).toContain(normalize(block('cleanup')))
    }
  )
})

describe('the CLI in README.md, docs/cli.md and docs/other-ci.md', () => {
  const files = ['README.md', 'docs/cli.md', 'docs/other-ci.md']
  const blocks = files.flatMap(file =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map(
      ([, body]) => [file, body] as const
    )
  )
  const cliBlocks = blocks.filter(([, body]) =>
    /dist\/cli\/index\.cjs"? (provision|run)\b/.test(body)
  )

  it('never runs the tool with npx, which resolves the package again and prefers a copy in the checkout', () => {
    expect(blocks.filter(([, body]) => /\bnpx\b/.test(body))).toEqual([])
  })

  it('installs the tarball pinned by its hash, checked before it is unpacked and run, in every CLI example', () => {
    // GitLab, Jenkins, CircleCI, Azure Pipelines, Bitbucket and Buildkite, and docs/cli.md.
    expect(cliBlocks.length).toBeGreaterThanOrEqual(7)
    for (const [file, body] of cliBlocks) {
      const check = body.indexOf('sha256sum -c')
      const unpack = body.indexOf('tar -xzf')
      const start = body.search(/index\.cjs"? (provision|run)\b/)
      expect([file, check > -1 && check < unpack && unpack < start]).toEqual([file, true])
      // The folder is new: a folder that exists already, with code in it, is refused.
      expect([file, /mkdir -m 700|mktemp -d/.test(body)]).toEqual([file, true])
    }
  })
})

describe('provision', () => {
  it('writes the four variables of the credential the service issued, readable only by the owner', async () => {
    const vars = await provision({ SVC_ENVIRONMENT: 'staging', SVC_TTL_MINUTES: '15' })
    expect(Object.keys(vars)).toEqual([
      'SVC_TUNNEL_TOKEN',
      'SVC_TUNNEL_USER',
      'SVC_TUNNEL_HOST',
      'SVC_TUNNEL_PORT'
    ])
    expect(vars.SVC_TUNNEL_TOKEN).toMatch(/^tok_/)
    expect(vars.SVC_TUNNEL_HOST).toBe(service.tunnelHost)
    expect(vars.SVC_TUNNEL_PORT).toBe(String(service.tunnelPort))
    const token = tokenOf(vars.SVC_TUNNEL_USER)
    expect(token).toMatchObject({ status: 'active', project_slug: service.seed.project })
    const lifetime = Date.parse(token?.expires_at ?? '') - Date.parse(token?.created_at ?? '')
    expect(lifetime).toBe(15 * 60_000)
    expect(statSync(join(dir, 'tunnel.env')).mode & 0o777).toBe(0o600)
  })

  it('sends project, environment and ttl_minutes, and leaves out what is not set', async () => {
    service.clearRequests()
    await provision({ SVC_ENVIRONMENT: 'staging', SVC_TTL_MINUTES: '15' })
    await provision()
    expect(service.requests().map(r => r.body)).toEqual([
      { project: service.seed.project, environment: 'staging', ttl_minutes: 15 },
      { project: service.seed.project }
    ])
  })

  it('single-quotes every value, so that a shell loading the file takes it as it is', async () => {
    await provision()
    const lines = readFileSync(join(dir, 'tunnel.env'), 'utf8').split('\n')
    expect(lines.slice(0, 4)).toEqual([
      expect.stringMatching(/^SVC_TUNNEL_TOKEN='tok_[0-9a-f]+'$/),
      expect.stringMatching(/^SVC_TUNNEL_USER='[a-z0-9]+'$/),
      `SVC_TUNNEL_HOST='${service.tunnelHost}'`,
      `SVC_TUNNEL_PORT='${service.tunnelPort}'`
    ])
  })

  // The check before writing admits no quote today; the quoting must hold if that check widens.
  it('quotes a value holding quotes, $, ` and ~ so that sourcing gives it back unchanged', async () => {
    const quoting = block('provision')
      .split('\n')
      .filter(line => /^(sq=|single_quoted\(\))/.test(line))
      .join('\n')
    const value = `~/it's "$(touch pwned)" \`id\` $HOME '' end'`
    const run = await bash(
      `${quoting}\necho "V=$(single_quoted "$VALUE")" > quoted.env\n. ./quoted.env\nprintf '%s' "$V"`,
      dir,
      { VALUE: value }
    )
    expect(run).toMatchObject({ code: 0, stdout: value, stderr: '' })
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
  })

  it('prints neither the API key nor the token, even when the shell traces', async () => {
    const run = await bash(block('provision'), dir, settings, '-xeo')
    const { SVC_TUNNEL_TOKEN } = readEnvFile(join(dir, 'tunnel.env'))
    expect(run.code).toBe(0)
    expect(run.stdout + run.stderr).not.toContain(settings.SVC_API_KEY)
    expect(run.stdout + run.stderr).not.toContain(SVC_TUNNEL_TOKEN)
  })

  it.each([
    ['a rejected key', { SVC_API_KEY: `sk_${'0'.repeat(64)}` }],
    ['a key without cicd:provision', { SVC_API_KEY: 'KEY_WITHOUT_SCOPE' }],
    ['an unknown project', { SVC_PROJECT: 'no-such-project' }],
    // Above the stand-in's bound (0 now means no expiry there, as in the product).
    ['a TTL the service refuses', { SVC_TTL_MINUTES: '1441' }]
  ])('fails with the service message on %s, and writes nothing', async (_case, change) => {
    const env: Record<string, string> = { ...settings, ...(change as Record<string, string>) }
    if (env.SVC_API_KEY === 'KEY_WITHOUT_SCOPE') env.SVC_API_KEY = service.seed.keyWithoutScope
    const body = {
      project: env.SVC_PROJECT,
      ...(env.SVC_TTL_MINUTES === undefined ? {} : { ttl_minutes: Number(env.SVC_TTL_MINUTES) })
    }
    const expected = await serviceError(env.SVC_API_KEY, body)
    const run = await bash(block('provision'), dir, env)
    expect(run.code).not.toBe(0)
    expect(run.stderr.trim()).toBe(expected)
    expect(existsSync(join(dir, 'tunnel.env'))).toBe(false)
  })

  it('refuses a TTL that is not a whole number before sending anything', async () => {
    service.clearRequests()
    const run = await bash(block('provision'), dir, { ...settings, SVC_TTL_MINUTES: '1h' })
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain("SVC_TTL_MINUTES must be a whole number of minutes, got '1h'")
    expect(service.requests()).toEqual([])
  })

  it.each([
    ['a page that is not JSON', { kind: 'non-json' as const }],
    [
      'a host that smuggles a second variable',
      { kind: 'hostile' as const, override: { tunnel_host: 'evil.example\nSVC_EXTRA=1' } }
    ],
    ['a token with a space', { kind: 'hostile' as const, override: { token: 'tok_a b' } }],
    ['a port out of range', { kind: 'hostile' as const, override: { tunnel_port: 70000 } }],
    ['no token', { kind: 'missing' as const, fields: ['token'] }]
  ])('fails on a 200 answer with %s, and writes nothing', async (_case, fault) => {
    service.injectFault({ ...fault, endpoint: 'credential-provision' })
    const run = await bash(block('provision'), dir, settings)
    expect(run.code).not.toBe(0)
    expect(run.stderr.trim()).toBe(
      'credential-provision answered 200 without a valid token, tunnel_user, tunnel_host and tunnel_port'
    )
    expect(existsSync(join(dir, 'tunnel.env'))).toBe(false)
  })
})

/**
 * Values a careless loader changes: unquoted, `.` and `export` turn a leading ~ into a home
 * directory, and `IFS='=' read` drops a lone trailing `=` (base64 padding) from a token.
 */
const awkward = { token: '~/tok_4f2a9c=', tunnel_user: '~root' }

describe.each([
  ['the credential the service issued', undefined],
  ['a token that starts with ~ and ends in =, and a user that starts with ~', awkward]
])('exporting to later steps, with %s', (_case, override) => {
  const show =
    'printf "%s|%s|%s|%s" "$SVC_TUNNEL_TOKEN" "$SVC_TUNNEL_USER" "$SVC_TUNNEL_HOST" "$SVC_TUNNEL_PORT"'
  const expectedLine = (v: Record<string, string>) =>
    `${v.SVC_TUNNEL_TOKEN}|${v.SVC_TUNNEL_USER}|${v.SVC_TUNNEL_HOST}|${v.SVC_TUNNEL_PORT}`

  /** Provisions, with the awkward values in the answer when the case has them. */
  async function provisioned(): Promise<Record<string, string>> {
    if (override !== undefined) {
      service.injectFault({ kind: 'hostile', endpoint: 'credential-provision', override })
    }
    const vars = await provision()
    if (override !== undefined) {
      expect([vars.SVC_TUNNEL_TOKEN, vars.SVC_TUNNEL_USER]).toEqual([
        override.token,
        override.tunnel_user
      ])
    }
    return vars
  }

  it('load: puts the variables in the shell and in the environment of its commands', async () => {
    const vars = await provisioned()
    const run = await bash(`${block('load')}\nbash -c '${show}'`, dir, {})
    expect(run.stdout).toBe(expectedLine(vars))
  })

  it('CircleCI: a later step that sources $BASH_ENV sees the variables', async () => {
    const vars = await provisioned()
    const bashEnv = join(dir, 'bash_env')
    await bash(block('export-circleci'), dir, { BASH_ENV: bashEnv })
    const later = await bash(`. "$BASH_ENV"\n${show}`, dir, { BASH_ENV: bashEnv })
    expect(later.stdout).toBe(expectedLine(vars))
  })

  it('Azure Pipelines: sets the variables with logging commands, the token as a secret', async () => {
    const vars = await provisioned()
    const run = await bash(block('export-azure'), dir, {})
    expect(run.stdout.trim().split('\n')).toEqual([
      `##vso[task.setvariable variable=SVC_TUNNEL_TOKEN;issecret=true]${vars.SVC_TUNNEL_TOKEN}`,
      `##vso[task.setvariable variable=SVC_TUNNEL_USER]${vars.SVC_TUNNEL_USER}`,
      `##vso[task.setvariable variable=SVC_TUNNEL_HOST]${vars.SVC_TUNNEL_HOST}`,
      `##vso[task.setvariable variable=SVC_TUNNEL_PORT]${vars.SVC_TUNNEL_PORT}`
    ])
  })

  it('Buildkite: exports the variables and adds the token to the redactor', async () => {
    const vars = await provisioned()
    // A stand-in for the agent's CLI that records what it was asked to do.
    const agent = join(dir, 'buildkite-agent')
    writeFileSync(agent, '#!/bin/bash\necho "$*: $(cat)" >> agent-calls.txt\n')
    chmodSync(agent, 0o755)
    const run = await bash(`${block('export-buildkite')}\nbash -c '${show}'`, dir, {
      PATH: `${dir}:${process.env.PATH ?? ''}`
    })
    expect(run.stdout).toBe(expectedLine(vars))
    expect(readFileSync(join(dir, 'agent-calls.txt'), 'utf8')).toBe(
      `redactor add: ${vars.SVC_TUNNEL_TOKEN}\n`
    )
  })
})

describe('cleanup', () => {
  it('revokes the token and removes tunnel.env', async () => {
    const { SVC_TUNNEL_USER: user } = await provision()
    const run = await bash(block('cleanup'), dir, settings)
    expect(run).toMatchObject({ code: 0, stdout: `Revoked tunnel user ${user}\n` })
    expect(tokenOf(user)?.status).toBe('revoked')
    expect(existsSync(join(dir, 'tunnel.env'))).toBe(false)
  })

  it('says so when the token is already gone, without failing', async () => {
    const { SVC_TUNNEL_USER: user } = await provision()
    const saved = readFileSync(join(dir, 'tunnel.env'), 'utf8')
    await bash(block('cleanup'), dir, settings)
    writeFileSync(join(dir, 'tunnel.env'), saved)
    const again = await bash(block('cleanup'), dir, settings)
    expect(again).toMatchObject({
      code: 0,
      stdout: `Tunnel user ${user} was already revoked or has expired\n`
    })
  })

  it('warns with the service message, without failing, when it cannot revoke', async () => {
    const { SVC_TUNNEL_USER: user } = await provision()
    const run = await bash(block('cleanup'), dir, {
      ...settings,
      SVC_API_KEY: `sk_${'0'.repeat(64)}`
    })
    expect(run.code).toBe(0)
    expect(run.stderr).toMatch(
      new RegExp(`^WARNING: could not revoke tunnel user ${user} \\(HTTP 401: .+\\)`)
    )
    expect(tokenOf(user)?.status).toBe('active')
  })

  it.each([204, 200, 202])('counts a %s without a body as revoked, as any 2xx', async status => {
    const { SVC_TUNNEL_USER: user } = await provision()
    service.injectFault({ kind: 'no-body', status, endpoint: 'revoke-token' })
    const run = await bash(block('cleanup'), dir, settings)
    expect(run).toMatchObject({ code: 0, stdout: `Revoked tunnel user ${user}\n`, stderr: '' })
    expect(tokenOf(user)?.status).toBe('revoked')
  })

  it('revokes the tunnel user exactly as the service named it, a leading ~ included', async () => {
    service.injectFault({ kind: 'hostile', endpoint: 'credential-provision', override: awkward })
    await provision()
    service.clearRequests()
    await bash(block('cleanup'), dir, settings)
    expect(service.requests().map(request => request.body)).toEqual([
      { tunnel_user: awkward.tunnel_user }
    ])
  })

  it('does nothing when nothing was provisioned', async () => {
    service.clearRequests()
    const run = await bash(block('cleanup'), dir, settings)
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(service.requests()).toEqual([])
  })
})

describe('bootstrap', () => {
  it('registers the project and creates a cicd:provision key that provisions for it', async () => {
    const env = {
      SVC_BASE_URL: service.baseUrl,
      SVC_JWT: service.seed.jwt,
      SVC_PROJECT: 'bootstrapped-app'
    }
    const run = await bash(block('bootstrap'), dir, env)
    expect(run.code).toBe(0)
    const keyFile = join(dir, 'ci-api-key.txt')
    const apiKey = readFileSync(keyFile, 'utf8').trim()
    expect(apiKey).toMatch(/^sk_[0-9a-f]{64}$/)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(run.stdout + run.stderr).not.toContain(apiKey)

    settings = {
      SVC_BASE_URL: service.baseUrl,
      SVC_API_KEY: apiKey,
      SVC_PROJECT: 'bootstrapped-app'
    }
    const vars = await provision()
    expect(tokenOf(vars.SVC_TUNNEL_USER)?.project_slug).toBe('bootstrapped-app')

    // Only cicd:provision: the new key cannot mint further keys.
    const more = await fetch(`${service.baseUrl}/api-keys-create`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'another', scopes: ['cicd:provision'] })
    })
    expect(more.status).toBe(403)
  })

  it('fails with the service message when the session token is refused', async () => {
    const env = {
      SVC_BASE_URL: service.baseUrl,
      SVC_JWT: 'not-a-session',
      SVC_PROJECT: 'never-made'
    }
    const run = await bash(block('bootstrap'), dir, env)
    expect(run.code).not.toBe(0)
    expect(run.stderr.trim()).toMatch(/^project-register failed: HTTP 401: \S/)
    expect(existsSync(join(dir, 'ci-api-key.txt'))).toBe(false)
  })
})

describe('SSH keys instead of tokens', () => {
  let tunneled: RunningService
  let app: Server
  let appPort: number

  beforeAll(async () => {
    tunneled = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
    app = createServer((_request, response) => response.end('hello from the job'))
    await new Promise<void>(resolve => app.listen(0, '127.0.0.1', resolve))
    appPort = (app.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise(resolve => app.close(resolve))
    await tunneled.close()
  })

  let env: Record<string, string>
  let tmp: string
  beforeEach(() => {
    // The key pair's temporary folder lands here, so a test can see it made and removed.
    tmp = join(dir, 'tmp')
    mkdirSync(tmp)
    env = {
      SVC_BASE_URL: tunneled.baseUrl,
      SVC_API_KEY: tunneled.seed.provisionKey,
      SVC_CLIENT_ID: 'ci-runner',
      SVC_TUNNEL_HOST: tunneled.tunnelHost,
      SVC_TUNNEL_PORT: String(tunneled.tunnelPort),
      SVC_KNOWN_HOSTS: tunneled.tunnel!.knownHostsPath,
      SVC_TUNNEL_NAME: 'app',
      SVC_LOCAL_PORT: String(appPort),
      TMPDIR: tmp
    }
    tunneled.resetFaults()
  })

  const keyOf = (id: string) => tunneled.sshKeys().find(key => key.id === id)

  it('the GitLab example contains the three blocks unchanged', () => {
    const text = normalize((pipelines.get('gitlab-ssh-key') ?? []).join('\n'))
    for (const name of ['ssh-key-upload', 'ssh-key-connect', 'ssh-key-cleanup']) {
      expect(text).toContain(normalize(block(name)))
    }
  })

  async function upload(): Promise<Record<string, string>> {
    const run = await bash(block('ssh-key-upload'), dir, env)
    expect(run).toMatchObject({ code: 0, stderr: '' })
    return readEnvFile(join(dir, 'tunnel-key.env'))
  }

  it('uploads a fresh ed25519 key for the client id, and writes where it is and how to reach the server', async () => {
    tunneled.clearRequests()
    const vars = await upload()
    expect(Object.keys(vars)).toEqual([
      'SVC_TUNNEL_KEY_FILE',
      'SVC_TUNNEL_KEY_ID',
      'SVC_TUNNEL_USER',
      'SVC_TUNNEL_HOST',
      'SVC_TUNNEL_PORT'
    ])
    expect(vars).toMatchObject({
      SVC_TUNNEL_USER: 'ci-runner',
      SVC_TUNNEL_HOST: tunneled.tunnelHost,
      SVC_TUNNEL_PORT: String(tunneled.tunnelPort)
    })
    expect(statSync(join(dir, 'tunnel-key.env')).mode & 0o777).toBe(0o600)
    expect(statSync(vars.SVC_TUNNEL_KEY_FILE).mode & 0o777).toBe(0o600)
    const publicLine = readFileSync(`${vars.SVC_TUNNEL_KEY_FILE}.pub`, 'utf8').trim()
    const [{ body }] = tunneled.requests()
    expect(body).toEqual({
      public_key_ssh: publicLine,
      name: expect.stringMatching(/^ci-ci-runner-\d{8}T\d{6}Z$/),
      expires_in_days: 1,
      client_id: 'ci-runner'
    })
    const printed = execFileSync('ssh-keygen', ['-l', '-f', `${vars.SVC_TUNNEL_KEY_FILE}.pub`], {
      encoding: 'utf8'
    })
    const key = keyOf(vars.SVC_TUNNEL_KEY_ID)
    expect(key).toMatchObject({ status: 'active', client_id: 'ci-runner' })
    expect(printed).toContain(` ${key?.fingerprint} `)
    expect(Date.parse(key?.expires_at ?? '') - Date.parse(key?.created_at ?? '')).toBe(86_400_000)
  })

  it('opens the tunnel with ssh -i and the host key checked; the cleanup closes it, revokes the key and deletes it', async () => {
    const vars = await upload()
    const connect = await bash(block('ssh-key-connect'), dir, env)
    expect(connect).toMatchObject({ code: 0, stdout: `Tunnel app open to localhost:${appPort}\n` })
    expect(await throughTunnel(tunneled, 'ci-runner')).toEqual({
      status: 200,
      body: 'hello from the job'
    })

    const privateCopy = join(dir, 'copy-of-key')
    copyFileSync(vars.SVC_TUNNEL_KEY_FILE, privateCopy)
    chmodSync(privateCopy, 0o600)
    const cleanup = await bash(block('ssh-key-cleanup'), dir, env)
    expect(cleanup).toMatchObject({
      code: 0,
      stdout: `Revoked SSH key ${vars.SVC_TUNNEL_KEY_ID}\n`,
      stderr: ''
    })
    expect(keyOf(vars.SVC_TUNNEL_KEY_ID)?.status).toBe('revoked')
    expect(existsSync(join(dir, 'tunnel-key.env'))).toBe(false)
    expect(readdirSync(tmp)).toEqual([])
    expect((await throughTunnel(tunneled, 'ci-runner')).status).toBe(502)

    // A new login with the same private key is refused now.
    writeFileSync(
      join(dir, 'tunnel-key.env'),
      Object.entries({ ...vars, SVC_TUNNEL_KEY_FILE: privateCopy })
        .map(([name, value]) => `${name}=${value}\n`)
        .join('')
    )
    const again = await bash(block('ssh-key-connect'), dir, env)
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain('Permission denied (publickey,password)')
  })

  it('refuses a tunnel server whose host key is not the known one', async () => {
    await upload()
    const emptyKnownHosts = join(dir, 'known_hosts')
    writeFileSync(emptyKnownHosts, '')
    const run = await bash(block('ssh-key-connect'), dir, {
      ...env,
      SVC_KNOWN_HOSTS: emptyKnownHosts
    })
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain('Host key verification failed')
    expect(tunneled.tunnel!.sessions().filter(s => s.user === 'ci-runner')).toEqual([])
    await bash(block('ssh-key-cleanup'), dir, env)
  })

  it('prints neither the API key nor the private key, even when the shell traces', async () => {
    const upload = await bash(block('ssh-key-upload'), dir, env, '-xeo')
    const { SVC_TUNNEL_KEY_FILE } = readEnvFile(join(dir, 'tunnel-key.env'))
    const privateKey = readFileSync(SVC_TUNNEL_KEY_FILE, 'utf8')
    const secretLine = privateKey.split('\n')[1]
    const cleanup = await bash(block('ssh-key-cleanup'), dir, env, '-xeo')
    const output = upload.stdout + upload.stderr + cleanup.stdout + cleanup.stderr
    expect(upload.code).toBe(0)
    expect(output).not.toContain(env.SVC_API_KEY)
    expect(output).not.toContain(secretLine)
  })

  it.each([
    ['a rejected API key', { SVC_API_KEY: `sk_${'0'.repeat(64)}` }, 401],
    ['a client id the service refuses', { SVC_CLIENT_ID: '-dash-first' }, 400]
  ])(
    'fails with the service message on %s, and leaves no key behind',
    async (_case, change, status) => {
      const run = await bash(block('ssh-key-upload'), dir, { ...env, ...change })
      expect(run.code).not.toBe(0)
      expect(run.stderr.trim()).toMatch(new RegExp(`^keys-upload failed: HTTP ${status}: \\S`))
      expect(existsSync(join(dir, 'tunnel-key.env'))).toBe(false)
      expect(readdirSync(tmp)).toEqual([])
    }
  )

  // curl --retry 3 tries four times, waiting 1, 2 and 4 seconds: hence the longer test timeout.
  it('fails with the retry time when the service answers 429 to every try', async () => {
    tunneled.injectFault({ kind: '429', retryAfter: 3600, endpoint: 'keys-upload', count: 4 })
    const run = await bash(block('ssh-key-upload'), dir, env)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(
      'keys-upload failed: HTTP 429: Rate limit exceeded; retry after 3600 seconds'
    )
    expect(readdirSync(tmp)).toEqual([])
  }, 20_000)

  it('refuses a missing client id or tunnel host before sending anything', async () => {
    tunneled.clearRequests()
    const run = await bash(block('ssh-key-upload'), dir, { ...env, SVC_CLIENT_ID: '' })
    expect(run.code).not.toBe(0)
    expect(run.stderr.trim()).toBe(
      'SVC_CLIENT_ID, SVC_TUNNEL_HOST and SVC_TUNNEL_PORT must be set to a user name, a host name and a port'
    )
    expect(tunneled.requests()).toEqual([])
  })

  it("fails on a fingerprint that is not the key's, and the cleanup then revokes the key", async () => {
    tunneled.injectFault({
      kind: 'hostile',
      endpoint: 'keys-upload',
      override: { public_key_fingerprint: 'SHA256:not-this-key' }
    })
    const run = await bash(block('ssh-key-upload'), dir, env)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(
      /^keys-upload answered the fingerprint 'SHA256:not-this-key', but the key's is SHA256:\S+: not using it; the cleanup revokes it$/m
    )
    const { SVC_TUNNEL_KEY_ID: id } = readEnvFile(join(dir, 'tunnel-key.env'))
    await bash(block('ssh-key-cleanup'), dir, env)
    expect(keyOf(id)?.status).toBe('revoked')
  })

  it('says so when the key is already gone, and warns without failing when it cannot revoke', async () => {
    const vars = await upload()
    const saved = readFileSync(join(dir, 'tunnel-key.env'), 'utf8')
    await bash(block('ssh-key-cleanup'), dir, env)
    writeFileSync(join(dir, 'tunnel-key.env'), saved)
    const again = await bash(block('ssh-key-cleanup'), dir, env)
    expect(again).toMatchObject({
      code: 0,
      stdout: `SSH key ${vars.SVC_TUNNEL_KEY_ID} was already revoked or deleted\n`
    })

    const other = await upload()
    const refused = await bash(block('ssh-key-cleanup'), dir, {
      ...env,
      SVC_API_KEY: tunneled.seed.secondOwnerKey
    })
    expect(refused.code).toBe(0)
    expect(refused.stderr).toMatch(
      new RegExp(`^WARNING: could not revoke SSH key ${other.SVC_TUNNEL_KEY_ID} \\(HTTP 403: .+\\)`)
    )
    expect(keyOf(other.SVC_TUNNEL_KEY_ID)?.status).toBe('active')
    // The private half is deleted all the same.
    expect(readdirSync(tmp)).toEqual([])
  })

  it('does nothing when nothing was uploaded', async () => {
    tunneled.clearRequests()
    const run = await bash(block('ssh-key-cleanup'), dir, env)
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(tunneled.requests()).toEqual([])
  })
})

describe('GitLab CI', () => {
  type GitLabJob = {
    image?: string
    timeout?: string
    before_script?: string[]
    script?: string[]
  }
  const jobsOf = (pipeline: string): [string, GitLabJob][] =>
    Object.entries(parse(pipeline) as Record<string, GitLabJob>).filter(
      ([name]) => name !== 'variables' && name !== 'default'
    )

  // GitLab's default image has no jq, and it picks bash only when the image has it at the start.
  it.each(['gitlab', 'gitlab-ssh', 'gitlab-ssh-key'])(
    'the %s pipeline names an image and installs curl and jq (and ssh where it is used) first',
    name => {
      const [pipeline] = pipelines.get(name) ?? []
      expect(pipeline).toBeDefined()
      for (const [, job] of jobsOf(pipeline)) {
        const usesSsh = /\bssh /.test(JSON.stringify(job))
        const packages = ['ca-certificates', 'curl', 'jq', ...(usesSsh ? ['openssh-client'] : [])]
        expect(job.image).toBe('debian:bookworm-slim')
        const install = job.before_script?.[0] ?? ''
        expect(install).toMatch(/^apt-get update -qq && apt-get install -y -qq /)
        expect(
          install
            .split(' ')
            .filter(word => packages.includes(word))
            .sort()
        ).toEqual(packages.sort())
      }
    }
  )

  // GitLab skips after_script when a job times out: the TTL is then all that ends the token.
  it.each(['gitlab', 'gitlab-ssh'])(
    "the %s pipeline's token expires before the job's timeout",
    name => {
      const [pipeline] = pipelines.get(name) ?? []
      const { variables } = parse(pipeline) as { variables: Record<string, string> }
      for (const [, job] of jobsOf(pipeline)) {
        const timeout = /^(\d+) minutes$/.exec(job.timeout ?? '')
        expect(timeout).not.toBeNull()
        expect(Number(variables.SVC_TTL_MINUTES)).toBeLessThan(Number(timeout?.[1]))
      }
    }
  )

  it('the ssh -R example contains the tested blocks unchanged', () => {
    const text = normalize((pipelines.get('gitlab-ssh') ?? []).join('\n'))
    for (const name of ['provision', 'load', 'connect', 'disconnect', 'cleanup']) {
      expect(text).toContain(normalize(block(name)))
    }
  })
})

describe('GitLab CI: the token with ssh -R', () => {
  let tunneled: RunningService
  let app: Server
  let appPort: number

  beforeAll(async () => {
    tunneled = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
    app = createServer((_request, response) => response.end('hello from the job'))
    await new Promise<void>(resolve => app.listen(0, '127.0.0.1', resolve))
    appPort = (app.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise(resolve => app.close(resolve))
    await tunneled.close()
  })

  let env: Record<string, string>
  let tmp: string
  let afterTest = () => {}
  afterEach(() => {
    afterTest()
    afterTest = () => {}
  })
  beforeEach(() => {
    tmp = join(dir, 'tmp')
    mkdirSync(tmp)
    env = {
      SVC_BASE_URL: tunneled.baseUrl,
      SVC_API_KEY: tunneled.seed.provisionKey,
      SVC_PROJECT: tunneled.seed.project,
      SVC_KNOWN_HOSTS: tunneled.tunnel!.knownHostsPath,
      SVC_TUNNEL_NAME: 'app',
      SVC_LOCAL_PORT: String(appPort),
      TMPDIR: tmp
    }
  })

  async function provisionHere(): Promise<Record<string, string>> {
    const run = await bash(block('provision'), dir, env)
    expect(run).toMatchObject({ code: 0, stderr: '' })
    return readEnvFile(join(dir, 'tunnel.env'))
  }

  /** Every command line on this machine that holds `text`. */
  const commandLinesWith = (text: string): string[] =>
    readdirSync('/proc')
      .filter(entry => /^\d+$/.test(entry))
      .map(pid => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
        } catch {
          return ''
        }
      })
      .filter(line => line.includes(text))

  it('opens the tunnel with the token as the password, on no command line; disconnect and cleanup close it and revoke the token', async () => {
    const vars = await provisionHere()
    const connect = await bash(`${block('load')}\n${block('connect')}`, dir, env, '-xeo')
    expect(connect.code).toBe(0)
    expect(connect.stdout).toBe(`Tunnel app open to localhost:${appPort}\n`)
    expect(connect.stdout + connect.stderr).not.toContain(vars.SVC_TUNNEL_TOKEN)
    expect(await throughTunnel(tunneled, vars.SVC_TUNNEL_USER)).toEqual({
      status: 200,
      body: 'hello from the job'
    })
    expect(commandLinesWith(vars.SVC_TUNNEL_TOKEN)).toEqual([])
    const [askpassDir] = readdirSync(tmp)
    expect(readFileSync(join(tmp, askpassDir, 'askpass'), 'utf8')).not.toContain(
      vars.SVC_TUNNEL_TOKEN
    )

    const disconnect = await bash(block('disconnect'), dir, env)
    expect(disconnect).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect((await throughTunnel(tunneled, vars.SVC_TUNNEL_USER)).status).toBe(502)
    expect(readdirSync(tmp)).toEqual([])
    expect(existsSync(join(dir, 'tunnel-ssh.dir'))).toBe(false)
    const cleanup = await bash(block('cleanup'), dir, env)
    expect(cleanup.stdout).toBe(`Revoked tunnel user ${vars.SVC_TUNNEL_USER}\n`)
    expect(tunneled.tokens().find(t => t.tunnel_user === vars.SVC_TUNNEL_USER)?.status).toBe(
      'revoked'
    )
  })

  it("fails with ssh's own message when the server refuses the token, and disconnect still tidies up", async () => {
    const vars = await provisionHere()
    await bash(block('cleanup'), dir, env)
    // The revoked token's file again, as a job whose token was revoked under it would hold it.
    writeFileSync(
      join(dir, 'tunnel.env'),
      Object.entries(vars)
        .map(([name, value]) => `${name}='${value}'\n`)
        .join('')
    )
    const connect = await bash(`${block('load')}\n${block('connect')}`, dir, env)
    expect(connect.code).not.toBe(0)
    expect(connect.stderr).toContain(
      `ssh to ${vars.SVC_TUNNEL_USER}@${vars.SVC_TUNNEL_HOST}:${vars.SVC_TUNNEL_PORT} failed:`
    )
    expect(connect.stderr).toContain('Permission denied')
    expect(connect.stderr).not.toContain(vars.SVC_TUNNEL_TOKEN)
    await bash(block('disconnect'), dir, env)
    expect(readdirSync(tmp)).toEqual([])
  })

  it('runs the whole job as GitLab does: it ends while the app still runs, and after_script stops the app, closes the tunnel and revokes', async () => {
    const [pipeline] = pipelines.get('gitlab-ssh') ?? []
    const { variables, preview } = parse(pipeline) as {
      variables: Record<string, string>
      preview: { before_script: string[]; script: string[]; after_script: string[] }
    }
    // Stand-ins: apt-get records what the job installs; the app answers on its port; the tests
    // ask the stand-in's front for the tunnel, as a browser would.
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'apt-get'), '#!/bin/sh\necho "$*" >> apt-get.txt\n')
    writeFileSync(
      join(dir, 'start-app.sh'),
      `#!/bin/sh\nexec "${process.execPath}" -e "require('http').createServer((q, r) => r.end('hello from the job')).listen(+process.argv[1])" "$1"\n`
    )
    writeFileSync(
      join(dir, 'run-integration-tests.sh'),
      '#!/bin/bash\nfor i in $(seq 50); do\n' +
        // Quiet while it retries: a 502 before the forward is up is expected on a busy machine.
        '  if curl -fs -H "Host: $SVC_TUNNEL_NAME-$SVC_TUNNEL_USER.localhost:$FRONT_PORT" "http://127.0.0.1:$FRONT_PORT/" > through-tunnel.txt; then exit 0; fi\n' +
        '  sleep 0.1\ndone\nexit 1\n'
    )
    for (const file of ['bin/apt-get', 'start-app.sh', 'run-integration-tests.sh']) {
      chmodSync(join(dir, file), 0o755)
    }
    const spare = createServer()
    await new Promise<void>(resolve => spare.listen(0, '127.0.0.1', resolve))
    const localPort = String((spare.address() as AddressInfo).port)
    await new Promise(resolve => spare.close(resolve))
    const jobEnv = {
      ...variables,
      ...env,
      SVC_LOCAL_PORT: localPort,
      SVC_TUNNEL_NAME: variables.SVC_TUNNEL_NAME,
      FRONT_PORT: String(tunneled.tunnel!.frontPort),
      PATH: `${bin}:${process.env.PATH ?? ''}`
    }

    // before_script and script in one shell; the run only ends when no process holds its output.
    const job = await bash(
      [...preview.before_script, ...preview.script].join('\n'),
      dir,
      jobEnv,
      '-eo',
      8000
    )
    const appPid = Number(readFileSync(join(dir, 'app.pid'), 'utf8'))
    // Stopped here too, so that a failure below leaves no app running.
    afterTest = () => {
      try {
        process.kill(appPid)
      } catch {
        // already gone
      }
    }
    expect(job).toMatchObject({ code: 0, stderr: '' })
    expect(job.stdout).toContain(`Tunnel preview open to localhost:${localPort}\n`)
    expect(readFileSync(join(dir, 'through-tunnel.txt'), 'utf8')).toBe('hello from the job')
    expect(readFileSync(join(dir, 'apt-get.txt'), 'utf8')).toBe(
      'update -qq\ninstall -y -qq --no-install-recommends ca-certificates curl jq openssh-client\n'
    )
    // Running, not merely a zombie that nobody has reaped yet (the job's shell is gone).
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
      } catch {
        return false
      }
    }
    expect(alive(appPid)).toBe(true)
    const { SVC_TUNNEL_USER: user, SVC_TUNNEL_TOKEN: token } = readEnvFile(join(dir, 'tunnel.env'))

    const after = await bash(preview.after_script.join('\n'), dir, jobEnv)
    expect(after).toMatchObject({ code: 0, stdout: `Revoked tunnel user ${user}\n`, stderr: '' })
    expect(tunneled.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')
    expect((await throughTunnel(tunneled, user, 'preview')).status).toBe(502)
    for (let i = 0; i < 50 && alive(appPid); i++) await new Promise(r => setTimeout(r, 20))
    expect(alive(appPid)).toBe(false)
    expect(readdirSync(tmp)).toEqual([])
    expect(job.stdout + job.stderr + after.stdout + after.stderr).not.toContain(token)
    expect(job.stdout + job.stderr + after.stdout + after.stderr).not.toContain(env.SVC_API_KEY)
  }, 20_000)
})

describe('the retries the page promises', () => {
  const sentence =
    /`curl --retry 3` retries a timeout, a\s+refused connection and the answers ([\d, ]+) and (\d+); no other answer\./
  const [, listed, last] = sentence.exec(doc) ?? []
  const retried = [...(listed ?? '').split(', '), last].map(Number)

  it('names the statuses', () => {
    expect(retried).toEqual([408, 429, 500, 502, 503, 504])
  })

  // One bad answer, then the real one: curl asks again (after a second) only for the listed ones.
  it.each([...retried.map(status => [status, 2]), [501, 1], [505, 1], [400, 1]])(
    'provision, given one %s answer, sends %s request(s)',
    async (status, requests) => {
      service.injectFault({ kind: 'no-body', status, endpoint: 'credential-provision', count: 1 })
      service.clearRequests()
      const run = await bash(block('provision'), dir, settings)
      expect(service.requests()).toHaveLength(requests)
      expect(run.code === 0).toBe(requests === 2)
    }
  )
})
