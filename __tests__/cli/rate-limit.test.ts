/**
 * A 429 from credential-provision as the CLI prints it: one line on stderr that says when the
 * next provision is possible, and names `--share` (the CLI's spelling). Outside GitHub Actions and
 * GitLab CI the CLI has no run every job sees, where `--share` is refused, so the line says that
 * rather than send the user to it. In this process, through main() as bin.ts calls it, with nock.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import { useNock } from '../helpers/nock-lifecycle.js'

// nock must patch http before the CLI's HTTP client loads.
const { runCliInProcess } = await import('../helpers/in-process-cli.js')

useNock(nock)
const ORIGIN = 'https://credentials.example.test'
let work: string
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-rate-limit-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

it('says when to provision again, and that --share needs GitHub or GitLab, in one line, exporting nothing', async () => {
  nock(ORIGIN)
    .post('/functions/v1/credential-provision')
    .reply(429, { error: 'Rate limit exceeded', code: 'RATE_LIMIT', retry_after: 1800 })
  const before = Date.now()
  const ran = await runCliInProcess(['provision'], {
    PATH: process.env.PATH,
    SVC_API_KEY: `sk_${'0123456789abcdef'.repeat(4)}`,
    SVC_BASE_URL: `${ORIGIN}/functions/v1`,
    SVC_PROJECT: 'owner/repo',
    SVC_TTL_MINUTES: '30',
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    SVC_WORK_DIR: work
  })
  expect(ran.code).toBe(1)
  expect(ran.stderr).toHaveLength(1)
  const [line] = ran.stderr
  const at =
    /re-run the job after (\S+Z) \(in 30 min\), when the next provision is possible\./.exec(line)
  expect(at).not.toBeNull()
  // The time named is the service's wait from now, in whole UTC seconds.
  const named = Date.parse(at![1])
  expect(named).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 1800_000)
  expect(named).toBeLessThanOrEqual(Date.now() + 1800_000 + 1000)
  expect(line).toContain(
    'One credential per run (--share) works on GitHub Actions and GitLab CI only; here, fewer jobs that provision in an hour stay under the limit.'
  )
  expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
})
