/**
 * `run` clears the secrets from its own environment block, which its command could read in
 * /proc/<run's pid>/environ. Real processes for the clearing itself; a stand-in /proc folder for
 * what happens when it cannot be done.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  clearSecretsFromOwnEnvironment,
  keepSecretsFromCommand,
  type OwnProcess
} from '../../src/cli/own-environment.js'

const moduleUrl = new URL('../../src/cli/own-environment.ts', import.meta.url).href
const KEY = 'sk_own_environment_test_key_0123456789'
const TOKEN = 'tok_own_environment_test_token_0123'

/**
 * A Node process started with `env` clears its own environment, then reports what another
 * process of the same user sees in its /proc/<pid>/environ, and what it kept for itself.
 */
function clearInAProcess(env: Record<string, string>): {
  seen: string[]
  kept: Record<string, string | undefined>
  inherited: Record<string, string | undefined>
} {
  const script = `
    import { clearSecretsFromOwnEnvironment } from ${JSON.stringify(moduleUrl)}
    import { execFileSync } from 'node:child_process'
    const cleared = clearSecretsFromOwnEnvironment(process.env)
    const seen = execFileSync('cat', ['/proc/' + process.pid + '/environ'], { encoding: 'latin1' })
    console.log(JSON.stringify({ seen: seen.split('\\0'), kept: cleared.env, inherited: process.env }))`
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { env, encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) }
  )
  return JSON.parse(out) as ReturnType<typeof clearInAProcess>
}

const onLinux = process.platform === 'linux' ? it : it.skip

describe('clearing the secrets from run’s own environment', () => {
  onLinux(
    'leaves no secret where another process reads the environment, and keeps it for run',
    () => {
      const { seen, kept, inherited } = clearInAProcess({
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        BEFORE: 'kept',
        SVC_API_KEY: KEY,
        // A value that holds the name is no entry of it, and stays as it is.
        LOOKALIKE: `SVC_API_KEY=${KEY}`,
        SVC_INPUT_TUNNEL_TOKEN: TOKEN,
        AFTER: 'kept too'
      })
      const others = seen.filter(entry => entry !== '')
      expect(others.filter(entry => entry.includes(KEY))).toEqual([`LOOKALIKE=SVC_API_KEY=${KEY}`])
      expect(others.some(entry => entry.includes(TOKEN))).toBe(false)
      expect(others).toEqual(expect.arrayContaining(['BEFORE=kept', 'AFTER=kept too']))
      expect([kept.SVC_API_KEY, kept.SVC_INPUT_TUNNEL_TOKEN, kept.AFTER]).toEqual([
        KEY,
        TOKEN,
        'kept too'
      ])
      // Children started without an environment of their own get no secret either.
      expect([inherited.SVC_API_KEY, inherited.SVC_INPUT_TUNNEL_TOKEN]).toEqual([
        undefined,
        undefined
      ])
    }
  )
})

describe('when the secrets cannot be cleared', () => {
  let proc: string
  beforeEach(() => {
    proc = mkdtempSync(join(tmpdir(), 'own-environment-'))
    writeFileSync(join(proc, 'environ'), `PATH=/bin\0SVC_API_KEY=${KEY}\0`)
    // A stat line with every field up to env_end (51), the block at 4096..4200.
    const fields = Array.from({ length: 49 }, (_, index) => String(index + 3))
    fields[50 - 3] = '4096'
    fields[51 - 3] = '4200'
    writeFileSync(join(proc, 'stat'), `1234 (no) ${fields.join(' ')}\n`)
  })
  afterEach(() => rmSync(proc, { recursive: true, force: true }))

  const stand = (parts: Partial<OwnProcess> = {}): OwnProcess => ({
    platform: 'linux',
    pid: 1234,
    procDir: proc,
    inherited: { SVC_API_KEY: KEY },
    ...parts
  })
  const terminal = () => {
    const lines = { stdout: [] as string[], stderr: [] as string[] }
    return {
      lines,
      stdout: (line: string) => lines.stdout.push(line),
      stderr: (line: string) => lines.stderr.push(line)
    }
  }

  it('run refuses before it starts anything when its memory cannot be written', () => {
    mkdirSync(join(proc, 'mem'))
    const own = stand()
    const input = { env: { SVC_API_KEY: KEY }, terminal: terminal() }
    expect(keepSecretsFromCommand(input, own)).toBeUndefined()
    expect(input.terminal.lines.stderr).toHaveLength(1)
    expect(input.terminal.lines.stderr[0]).toMatch(/^Error: /)
    expect(input.terminal.lines.stderr[0]).not.toContain(KEY)
    expect(own.inherited.SVC_API_KEY).toBeUndefined()
  })

  it('run refuses when the kernel gives no address for the block', () => {
    writeFileSync(join(proc, 'stat'), '1234 (no) S 1 2 3\n')
    writeFileSync(join(proc, 'mem'), Buffer.alloc(8192))
    expect(clearSecretsFromOwnEnvironment({ SVC_API_KEY: KEY }, stand())).toEqual({
      error: expect.any(String)
    })
  })

  it('run refuses when there is no /proc to check', () => {
    const own = stand({ procDir: join(proc, 'missing') })
    expect(clearSecretsFromOwnEnvironment({ SVC_API_KEY: KEY }, own)).toEqual({
      error: expect.any(String)
    })
  })

  it('off Linux, run goes on with one warning, and the secrets leave what children inherit', () => {
    const own = stand({ platform: 'darwin', procDir: join(proc, 'missing') })
    const input = { env: { SVC_API_KEY: KEY, OTHER: 'x' }, terminal: terminal() }
    const kept = keepSecretsFromCommand(input, own)
    expect(kept?.env).toEqual({ SVC_API_KEY: KEY, OTHER: 'x' })
    expect(input.terminal.lines.stderr).toHaveLength(1)
    expect(input.terminal.lines.stderr[0]).toMatch(/^Warning: /)
    expect(own.inherited.SVC_API_KEY).toBeUndefined()
  })

  it('without any secret there is nothing to clear, and nothing to refuse', () => {
    const own = stand({ procDir: join(proc, 'missing') })
    expect(clearSecretsFromOwnEnvironment({ OTHER: 'x' }, own)).toEqual({ env: { OTHER: 'x' } })
  })
})
