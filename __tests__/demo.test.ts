/**
 * `npm run demo` as a user runs it (scripts/demo.ts through tsx, the bundled action and CLI of
 * dist/): it exits 0, and its expose part, behind the gate, shows a 401 for a request without
 * the secret, a webhook that reached the app at its own path, post's request table with the
 * webhook's POST, the HAR's path (a file a real HAR consumer accepts) and the replay's statuses,
 * with no secret anywhere in what it prints or in the HAR.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { repoRoot } from '../scripts/runner.js'
import { DEFAULT_PROVISION_KEY } from '../service/seed.js'
import { readValidHar } from './core/tunnel/request-log/records.js'

let keepDir: string
beforeAll(() => (keepDir = mkdtempSync(join(tmpdir(), 'demo-test-'))))
afterAll(() => rmSync(keepDir, { recursive: true, force: true }))

function runDemo(): Promise<{ code: number; output: string }> {
  const tsx = join(repoRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs')
  return new Promise(resolve =>
    execFile(
      process.execPath,
      [tsx, join('scripts', 'demo.ts')],
      { cwd: repoRoot, env: { ...process.env, DEMO_KEEP_DIR: keepDir }, timeout: 150_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
          output: `${stdout}${stderr}`
        })
    )
  )
}

// A gate secret is 43 base64url characters; an SSH host key's fingerprint, also 43 characters
// long, follows `SHA256:`.
const SECRET_SHAPED = /(?<![A-Za-z0-9_+/:-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_+/=-])/g

function secretsIn(text: string): string[] {
  return [
    ...(text.includes(DEFAULT_PROVISION_KEY) ? ['the API key'] : []),
    ...(text.match(/tok_[A-Za-z0-9_-]+/g) ?? []),
    ...(text.match(SECRET_SHAPED) ?? []),
    // The gate's own 401 text (recorded with the tunnel's answers) names the form as
    // `_tunnel-gate/<secret>/`: a placeholder, not a secret.
    ...(text.match(/_tunnel-gate\/(?!\*\*\*|<secret>)[^\s"]+/g) ?? [])
  ]
}

it('shows the gate, the webhook, the request table, the HAR and its replay, and no secret', async () => {
  const { code, output } = await runDemo()
  expect({ code, output }).toMatchObject({ code: 0 })
  const lines = output.split('\n').map(line => line.trim())

  // A request without the secret: 401 from the tunnel, with the scheme to answer it.
  expect(lines.some(line => /^→ 401\b/.test(line) && /Basic realm=/.test(line))).toBe(true)
  // The webhook reached the app at its own path; the gate's prefix shows only masked.
  const received = lines.find(line => /POST \/hooks\/order\b/.test(line) && /^→ 200\b/.test(line))
  expect(received).toBeDefined()
  expect(received).not.toContain('_tunnel-gate')
  // Post's request table as text: a row for the webhook's POST, forwarded with the app's 200.
  expect(lines.some(line => /^\|.*\| POST \| \/hooks\/order \| 200 \|/.test(line))).toBe(true)

  // The HAR kept from RUNNER_TEMP: its path printed, a valid HAR holding the webhook's POST.
  const [harName] = readdirSync(keepDir).filter(name => name.endsWith('.har'))
  const harPath = join(keepDir, harName)
  expect(output).toContain(harPath)
  const har = await readValidHar(harPath)
  const posts = har.log.entries.filter(entry => entry.request.method === 'POST')
  expect(posts.map(entry => new URL(entry.request.url).pathname)).toEqual(['/hooks/order'])
  expect(posts[0].response.status).toBe(200)
  // The replay sent it again to the local app and got the recorded status.
  expect(lines.some(line => /^#\d+ POST \/hooks\/order +200 -> 200\b/.test(line))).toBe(true)

  expect(secretsIn(output)).toEqual([])
  expect(secretsIn(readFileSync(harPath, 'utf8'))).toEqual([])
}, 180_000)
