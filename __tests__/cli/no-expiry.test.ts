/**
 * A credential without expiry (issue 27), as the CLI shows it: an answer with ttl_minutes 0 and
 * no expires_at, in the product's shape, gives
 * an empty expires-at output, and "no expiry" in the summary and the closing line. In this
 * process, through main() as bin.ts calls it, with the service mocked by nock.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import { useNock } from '../helpers/nock-lifecycle.js'

// nock must patch http before the CLI's HTTP client loads.
const { runCliInProcess } = await import('../helpers/in-process-cli.js')

useNock(nock)
const ORIGIN = 'https://credentials.example.test'
const SECRET = 'tcs_9d8c7b6a5f4e3d2c1b0a'
let work: string
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-no-expiry-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

it('prints "no expiry" and leaves expires-at empty for an answer with ttl_minutes 0', async () => {
  nock(ORIGIN).post('/functions/v1/credential-provision').reply(200, {
    tunnel_client_id: 'cid42',
    tunnel_client_secret: SECRET,
    tunnel_fqdn: 'cicd.eu1.tunnels.example',
    tunnel_host: 's1.eu1.tunnels.example',
    tunnel_port: 2223,
    ownership_type: 'shared',
    append_user_to_subdomain: true,
    ttl_minutes: 0
  })
  const ran = await runCliInProcess(['provision', '--outputs-file', join(work, 'outputs.json')], {
    PATH: process.env.PATH,
    SVC_API_KEY: `sk_${'0123456789abcdef'.repeat(4)}`,
    SVC_BASE_URL: `${ORIGIN}/functions/v1`,
    SVC_PROJECT: 'owner/repo',
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    SVC_WORK_DIR: work
  })
  expect(ran.stderr).toEqual([])
  expect(ran.code).toBe(0)
  expect(ran.stdout).toContainEqual(expect.stringMatching(/^ +Expires at: no expiry$/))
  expect(ran.stdout).toContainEqual(expect.stringMatching(/^ +Ownership: shared$/))
  expect(ran.stdout.join('\n')).toContain(
    'Provisioned tunnel user cid42 for s1.eu1.tunnels.example:2223, with no expiry.'
  )
  const outputs = JSON.parse(readFileSync(join(work, 'outputs.json'), 'utf8')) as Record<
    string,
    string
  >
  expect(outputs['expires-at']).toBe('')
  expect(outputs['ttl-minutes']).toBe('0')
  expect(readFileSync(join(work, 'tunnel.env'), 'utf8')).toContain("SVC_TUNNEL_USER='cid42'")
  expect(ran.stdout.join('\n')).not.toContain(SECRET)
})
