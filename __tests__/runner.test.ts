/**
 * The runner emulation against a fixture action that writes every file command and prints
 * workflow commands by hand, so what is checked is the runner side, not @actions/core.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Job } from '../scripts/job.js'
import {
  ensureNode24,
  findSecretLeaks,
  renderLog,
  renderSummary,
  runStep,
  type StepResult
} from '../scripts/runner.js'
import { parseFileCommand } from '../scripts/runner/file-commands.js'
import { Masker } from '../scripts/runner/masker.js'
import { parseWorkflowCommand } from '../scripts/runner/workflow-commands.js'

const actionDir = fileURLToPath(new URL('./fixtures/echo-action', import.meta.url))
const SECRET = 'fixture-secret-42'

// On a fresh clone this installs Node 24 first (npm, several seconds): not inside a test's time.
beforeAll(() => ensureNode24(), 180_000)

function printedInputs(result: StepResult): Record<string, string> {
  const line = result.lines.find(l => l.text.startsWith('inputs '))!
  return JSON.parse(line.text.slice('inputs '.length))
}

describe('runStep (main)', () => {
  let result: StepResult
  beforeAll(async () => {
    process.env.DEVELOPER_ONLY_VARIABLE = 'must not reach the step'
    result = await runStep({
      step: 'main',
      actionDir,
      inputs: { 'API-Key': 'k', 'not-declared': 'x' },
      env: { JOB_LEVEL: 'yes' }
    })
    delete process.env.DEVELOPER_ONLY_VARIABLE
  })

  it('passes inputs as INPUT_<NAME> with defaults, dashes kept, spaces as _', () => {
    expect(printedInputs(result)).toEqual({
      INPUT_GREETING: 'hello',
      INPUT_MULTI_WORD: 'spaced',
      INPUT_FLAG: 'true',
      'INPUT_API-KEY': 'k',
      'INPUT_EXIT-CODE': '0',
      'INPUT_NOT-DECLARED': 'x'
    })
    expect(result.runnerWarnings).toEqual([
      expect.stringContaining("Unexpected input(s) 'not-declared'")
    ])
  })

  it('gives the step the runner variables and only the env it was given', () => {
    const keys = result.lines.find(l => l.text.startsWith('env keys '))!.text.split(/[ ,]/)
    expect(keys).toEqual(
      expect.arrayContaining(['GITHUB_ACTIONS', 'GITHUB_ENV', 'RUNNER_TEMP', 'JOB_LEVEL', 'PATH'])
    )
    expect(keys).not.toContain('DEVELOPER_ONLY_VARIABLE')
    expect(keys).not.toContain('RUNNER_DEBUG')
  })

  it('reads GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_PATH in both forms', () => {
    expect(result.env).toEqual({ SIMPLE: 'one=two', MULTI: 'line 1\nline 2' })
    expect(result.outputs).toEqual({
      out: 'plain',
      block: 'a<<b\nc=d',
      empty: '',
      legacy: 'from the command'
    })
    expect(result.state).toEqual({ 'token-user': 'u1' })
    expect(result.path).toEqual(['/opt/fixture/bin'])
    expect(result.summary).toBe('### Summary\n\n| a | b |\n')
    expect(result.conclusion).toBe('success')
  })

  it('parses commands with the runner escaping, on both streams, honouring stop-commands', () => {
    const names = result.commands.map(c => c.name)
    expect(names).toEqual([
      'add-mask',
      'group',
      'endgroup',
      'warning',
      'debug',
      'notice',
      'stop-commands',
      'set-output',
      'error'
    ])
    expect(result.commands[3]).toEqual({
      name: 'warning',
      properties: { file: 'a:b.ts', line: '3', title: 'T,U' },
      message: 'two\nlines 100%'
    })
    expect(result.commands.at(-1)).toEqual({ name: 'error', properties: {}, message: 'on stderr' })
    expect(result.masks).toEqual([SECRET])
    expect(result.stdout.endsWith('no trailing newline')).toBe(true)
  })

  it('renders the log as the UI shows it: masked after add-mask, annotations, groups', () => {
    const log = renderLog(result)
    expect(log).toContain(`before mask ${SECRET}`)
    expect(log).toContain('after mask ***')
    expect(log).toContain('▸ Details\n  inside the group\n')
    expect(log).toContain('Warning: two\nlines 100%')
    expect(log).toContain('Notice: fyi')
    expect(log).toContain('::error::not a command while stopped')
    expect(log).toContain('::unknown-cmd::shown as text')
    expect(log).toContain('Error: on stderr')
    expect(log).not.toContain('only with RUNNER_DEBUG')
    expect(log).not.toContain('add-mask')
  })

  // Strict on purpose: even a masked line is a leak in the raw output another tool may read.
  it('flags every line holding the secret except its add-mask, and a mask that came late', () => {
    expect(findSecretLeaks(result, { secrets: [SECRET], mustMask: [SECRET] })).toEqual([
      expect.stringMatching(/visible in stdout line \d+: before mask/),
      expect.stringMatching(/visible in stdout line \d+: after mask/),
      expect.stringMatching(/masked on line \d+, after line \d+ about the credential: before mask/)
    ])
  })
})

describe('runStep outcomes', () => {
  it('shows debug lines when RUNNER_DEBUG=1 and masks preset secrets from the start', async () => {
    const result = await runStep({
      step: 'main',
      actionDir,
      env: { RUNNER_DEBUG: '1' },
      secrets: [SECRET]
    })
    const log = renderLog(result)
    expect(log).toContain('##[debug]only with RUNNER_DEBUG')
    expect(log).toContain('before mask ***')
  })

  it('reports the exit code and fails the step on an unreadable file command', async () => {
    const failed = await runStep({ step: 'main', actionDir, inputs: { 'exit-code': '3' } })
    expect([failed.exitCode, failed.conclusion]).toEqual([3, 'failure'])
    const broken = await runStep({ step: 'main', actionDir, inputs: { mode: 'broken-env' } })
    expect(broken.exitCode).toBe(0)
    expect(broken.conclusion).toBe('failure')
    expect(broken.runnerErrors).toEqual([expect.stringContaining("delimiter not found 'END'")])
  })

  it('kills a step that outlives its time limit', async () => {
    const result = await runStep({
      step: 'main',
      actionDir,
      inputs: { mode: 'hang' },
      timeoutMs: 800
    })
    expect(result.timedOut).toBe(true)
    expect(result.exitCode).toBeNull()
    expect(result.durationMs).toBeLessThan(5000)
  })

  it('runs post with STATE_ variables and the env exported earlier in the job', async () => {
    const job = new Job({ env: { HOME: '/tmp' } })
    const use = await job.uses({}, { actionDir })
    const [post] = await job.end()
    expect(use.main.state).toEqual({ 'token-user': 'u1' })
    expect(post.stdout).toContain('post sees {')
    const seen = JSON.parse(post.stdout.slice(post.stdout.indexOf('{')))
    expect(seen).toEqual({ 'STATE_token-user': 'u1', SIMPLE: 'one=two' })
  })
})

describe('Job', () => {
  it('end() runs the post steps and removes RUNNER_TEMP', async () => {
    const job = new Job({ env: { HOME: '/tmp' } })
    await job.uses({}, { actionDir })
    expect(existsSync(job.runnerTemp)).toBe(true)
    expect((await job.end()).map(post => post.step)).toEqual(['post'])
    expect(existsSync(job.runnerTemp)).toBe(false)
  })

  it('discard() removes RUNNER_TEMP without running any post step', async () => {
    const job = new Job({ env: { HOME: '/tmp' } })
    await job.uses({}, { actionDir })
    job.discard()
    expect(existsSync(job.runnerTemp)).toBe(false)
    expect(await job.end()).toEqual([])
    expect(() => job.discard()).not.toThrow()
  })
})

describe('parsers', () => {
  it('reads CRLF files, takes the first marker, rejects broken lines', () => {
    expect(parseFileCommand('A=x<<y\r\nB<<E\r\n1\r\n2\r\nE\r\n')).toEqual({ A: 'x<<y', B: '1\n2' })
    expect(() => parseFileCommand('=v\n')).toThrow('name must not be empty')
    expect(() => parseFileCommand('just text\n')).toThrow("Invalid format 'just text'")
  })

  it('ignores unregistered commands and lines that are not commands', () => {
    expect(parseWorkflowCommand('::made-up::x')).toBeUndefined()
    expect(parseWorkflowCommand('text ::error::x')).toBeUndefined()
    expect(parseWorkflowCommand('::error')).toBeUndefined()
    expect(parseWorkflowCommand('::error::%250A')?.message).toBe('%0A')
  })

  it('masks overlapping secrets as one *** and each line of a multi-line secret', () => {
    const masker = new Masker()
    masker.add('abcd')
    masker.add('cdef')
    masker.add('one\ntwo')
    expect(masker.mask('xxabcdefyy abcd')).toBe('xx***yy ***')
    expect(masker.mask('line one, line two')).toBe('line ***, line ***')
  })
})

describe('secret checks', () => {
  const mask = (value: string) => ({
    stream: 'stdout' as const,
    text: `::add-mask::${value}`,
    command: { name: 'add-mask', properties: {}, message: value }
  })
  const text = (t: string) => ({ stream: 'stdout' as const, text: t })

  it('passes a step that masks first and never prints the secret', () => {
    const step = { lines: [mask('s3cret'), text('user u1 ready')], summary: 'u1', state: {} }
    expect(
      findSecretLeaks(step, {
        secrets: ['s3cret'],
        mustMask: ['s3cret'],
        about: ['u1'],
        maskFirst: ['s3cret']
      })
    ).toEqual([])
  })

  it('flags a secret in the summary or state, and a mask that is missing or not first', () => {
    const step = { lines: [text('starting'), mask('k1')], summary: 'k1', state: { a: 'x-k1' } }
    expect(
      findSecretLeaks(step, { secrets: ['k1'], maskFirst: ['k1', 'k2'], mustMask: ['k2'] })
    ).toEqual([
      'secret k1… is in the job summary',
      'secret k1… is in saved state a',
      'secret k2… was never masked',
      'secret k1… not masked before the first line: starting',
      'secret k2… was never masked'
    ])
  })
})

it('renders the HTML job summary as text rows', () => {
  const html =
    '<h3>Title</h3>\n<table><tr><th>Field</th><th>Value</th></tr><tr><td>User</td><td>a&#39;b &amp; c</td></tr></table>\n'
  expect(renderSummary(html)).toBe("### Title\n| Field | Value |\n| User | a'b & c |")
})
