/** credential: ssh-key, main and post in this process against a nock'd service. */
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import {
  API_KEY,
  BASE_URL,
  fakeClock,
  linesLeaking,
  runInProcess,
  type StepOutcome
} from '../../helpers/in-process-step.js'
import { useNock } from '../../helpers/nock-lifecycle.js'
import {
  INPUTS,
  ORIGIN,
  REVOKE,
  RUN,
  UPLOAD,
  fingerprintOfLine,
  useRunnerTemp
} from '../../helpers/ssh-key-step.js'

// nock must patch http before @actions/http-client loads.
const { runMain, runPost } = await import('../../helpers/github-steps.js')

const KEY_ID = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b'

useNock(nock)
const runnerTempOf = useRunnerTemp()

interface UploadBody {
  public_key_ssh: string
  name: string
  expires_in_days: number
  client_id?: string
}

/** A service that stores the key it is sent, recording the request; `answer` may alter the reply. */
function acceptUpload(answer: (body: UploadBody) => Record<string, unknown> = () => ({})) {
  const sent: UploadBody[] = []
  const scope = nock(ORIGIN, {
    reqheaders: { 'x-api-key': API_KEY, 'content-type': 'application/json' }
  })
    .post(UPLOAD, body => (sent.push(body as UploadBody), true))
    .reply(200, (_uri, body) => {
      const request = body as UploadBody
      return {
        key_id: KEY_ID,
        public_key_fingerprint: fingerprintOfLine(request.public_key_ssh),
        server_type: 'default',
        name: request.name,
        expires_at: '2026-11-24T10:00:00Z',
        ...answer(request)
      }
    })
  return { sent, scope }
}

function runMainWith(inputs: Record<string, string> = INPUTS, clock = fakeClock()) {
  return runInProcess(() => runMain(clock), inputs, {
    env: { ...RUN, RUNNER_TEMP: runnerTempOf() }
  })
}

function runPostAfter(main: StepOutcome, inputs: Record<string, string> = INPUTS) {
  return runInProcess(() => runPost(fakeClock()), inputs, {
    state: { ...main.state },
    env: { RUNNER_TEMP: runnerTempOf() }
  })
}

const infoLines = (lines: string[]) => lines.filter(line => !line.startsWith('::'))

/** Every base64 line of the private key file: none may appear in any log line. */
function privateKeyLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(line => line && !line.startsWith('-----'))
}

describe('main with credential: ssh-key', () => {
  it('uploads a fresh public key and publishes the key file, with no token', async () => {
    const { sent, scope } = acceptUpload()
    const step = await runMainWith()

    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(false)
    expect(sent).toHaveLength(1)
    const body = sent[0]
    expect(body).toEqual({
      public_key_ssh: expect.stringMatching(
        /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} ci-octo-org-web-shop-4242-2$/
      ),
      name: 'ci-octo-org-web-shop-4242-2',
      expires_in_days: 1,
      client_id: 'client-77'
    })

    const keyFile = step.env.SVC_TUNNEL_KEY_FILE
    expect(step.env).toEqual({
      SVC_TUNNEL_KEY_FILE: keyFile,
      SVC_TUNNEL_USER: 'client-77',
      SVC_TUNNEL_HOST: 'tunnel.example.test',
      SVC_TUNNEL_PORT: '2223'
    })
    const fingerprint = fingerprintOfLine(body.public_key_ssh)
    expect(step.outputs).toEqual({
      'key-id': KEY_ID,
      'key-fingerprint': fingerprint,
      'key-file': keyFile,
      'expires-at': '2026-11-24T10:00:00Z',
      'tunnel-user': 'client-77',
      'tunnel-host': 'tunnel.example.test',
      'tunnel-port': '2223',
      credential: 'ssh-key'
    })

    // A fresh folder under RUNNER_TEMP, holding only the key, readable by its owner only.
    expect(keyFile.startsWith(join(runnerTempOf(), 'tunnel-key-'))).toBe(true)
    expect(readdirSync(join(keyFile, '..'))).toEqual(['id_ed25519'])
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    // OpenSSH derives the uploaded line from the file: the file holds the uploaded key's private half.
    expect(execFileSync('ssh-keygen', ['-y', '-f', keyFile], { encoding: 'utf8' }).trim()).toBe(
      body.public_key_ssh
    )

    expect(JSON.parse(step.state.credential)).toEqual({
      kind: 'ssh-key',
      keyId: KEY_ID,
      fingerprint,
      keyName: 'ci-octo-org-web-shop-4242-2',
      baseUrl: BASE_URL,
      keyFolder: join(keyFile, '..'),
      keyFolderId: expect.stringMatching(/^\d+:\d+$/),
      expiresAt: '2026-11-24T10:00:00Z'
    })
    for (const line of privateKeyLines(keyFile)) {
      expect(step.lines.filter(logged => logged.includes(line))).toEqual([])
      expect(step.state.credential).not.toContain(line)
      expect(step.summary).not.toContain(line)
    }
    expect(linesLeaking(step, API_KEY)).toEqual([])
    expect(step.summary).toContain(fingerprint)
    expect(step.summary).toContain('ssh-key (revoked when the job ends)')
    expect(infoLines(step.lines).at(-1)).toBe(
      `Uploaded SSH key ${fingerprint} (id ${KEY_ID}) for tunnel user client-77 at tunnel.example.test:2223, ` +
        `valid until 2026-11-24T10:00:00Z. Its private key is in ${keyFile}, readable by this user only. ` +
        'Exported SVC_TUNNEL_KEY_FILE, _USER, _HOST and _PORT.'
    )
  })

  it('uses the tunnel-port input', async () => {
    acceptUpload()
    const step = await runMainWith({ ...INPUTS, 'tunnel-port': '2022' })
    expect(step.env.SVC_TUNNEL_PORT).toBe('2022')
    expect(step.outputs['tunnel-port']).toBe('2022')
  })

  it('makes a new key on every run', async () => {
    const first = acceptUpload()
    await runMainWith()
    const second = acceptUpload()
    await runMainWith()
    expect(first.sent[0].public_key_ssh).not.toBe(second.sent[0].public_key_ssh)
  })

  it('accepts a key that does not expire (expires_at null)', async () => {
    acceptUpload(() => ({ expires_at: null }))
    const step = await runMainWith()
    expect(step.failed).toBe(false)
    expect(step.outputs['expires-at']).toBe('')
    expect(JSON.parse(step.state.credential).expiresAt).toBeUndefined()
  })

  it('on a fingerprint mismatch, revokes the key at once, exports nothing and fails', async () => {
    const wrong = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
    acceptUpload(() => ({ public_key_fingerprint: wrong }))
    let revokeBody: unknown
    const revoke = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
      .post(REVOKE, body => ((revokeBody = body), true))
      .reply(200, { success: true, message: 'revoked' })

    const step = await runMainWith()

    expect(revoke.isDone()).toBe(true)
    expect(revokeBody).toEqual({ key_id: KEY_ID })
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^The credential service answered keys-upload with the fingerprint ${wrong}, but the key this step made and sent has SHA256:\\S+: the service did not store the key that was sent\\. Nothing was exported\\.`
        )
      )
    ])
    const fingerprint = step.errors[0].split(' has ')[1].split(':').slice(0, 2).join(':')
    expect(infoLines(step.lines)).toContain(
      `Revoked the uploaded SSH key ${fingerprint} (id ${KEY_ID}), which this step could not use.`
    )
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    // Saved while the key was being checked, then cleared once it was revoked: nothing for post.
    expect(step.state.credential).toBe('')
    expect(readdirSync(runnerTempOf())).toEqual([])
  })

  it('on a mismatch whose revoke fails too, saves the key for post to revoke', async () => {
    acceptUpload(() => ({ public_key_fingerprint: 'SHA256:bm90IHRoaXMga2V5' }))
    nock(ORIGIN).post(REVOKE).reply(401, { error: 'bad key', code: 'UNAUTHORIZED' })
    const step = await runMainWith()
    expect(step.failed).toBe(true)
    expect(
      infoLines(step.lines).filter(line =>
        /^Could not revoke the uploaded SSH key SHA256:\S+ \(id 6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b\) yet \(The API key was rejected \(401 UNAUTHORIZED\)\..*\); revoking when the job ends tries again\.$/.test(
          line
        )
      )
    ).toHaveLength(1)
    expect(JSON.parse(step.state.credential)).toMatchObject({
      kind: 'ssh-key',
      keyId: KEY_ID,
      rejected: true
    })
    expect(step.env).toEqual({})

    const revokeAgain = nock(ORIGIN).post(REVOKE, { key_id: KEY_ID }).reply(200, { success: true })
    const post = await runPostAfter(step)
    expect(revokeAgain.isDone()).toBe(true)
    expect(post.warnings).toEqual([])
  })

  it('revokes the key and deletes its file at once when writing the runner files fails', async () => {
    acceptUpload()
    const revoke = nock(ORIGIN).post(REVOKE, { key_id: KEY_ID }).reply(200, { success: true })
    // A directory where the env file should be: appending to it fails.
    const step = await runInProcess(() => runMain(fakeClock()), INPUTS, {
      env: { ...RUN, RUNNER_TEMP: runnerTempOf(), GITHUB_ENV: tmpdir() }
    })
    expect(revoke.isDone()).toBe(true)
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.state.credential).toBe('')
    expect(readdirSync(runnerTempOf())).toEqual([])
  })

  it('revokes at once an answer with a key id but no usable fingerprint', async () => {
    acceptUpload(() => ({ public_key_fingerprint: 'md5:aa:bb' }))
    const revoke = nock(ORIGIN).post(REVOKE, { key_id: KEY_ID }).reply(200, { success: true })
    const step = await runMainWith()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors[0]).toMatch(
      /^The credential service sent a key upload answer that failed validation: public_key_fingerprint is missing or not of the form SHA256:<base64>\. Nothing was exported\./
    )
    expect(step.env).toEqual({})
  })

  it('names the key to look for when the answer has no key id and the key list fails too', async () => {
    const { sent } = acceptUpload(() => ({ key_id: undefined }))
    nock(ORIGIN).get('/functions/v1/user-keys-list').times(3).reply(503)
    const step = await runMainWith()
    expect(step.failed).toBe(true)
    const fingerprint = fingerprintOfLine(sent[0].public_key_ssh)
    expect(step.errors[0]).toContain(
      `key_id is missing or not a plain identifier, so the key cannot be revoked by its id; a key with fingerprint ${fingerprint} and name "ci-octo-org-web-shop-4242-2" may still be active: find it in the service dashboard or with GET user-keys-list, and revoke it (POST revoke-ssh-key with its id) using the same api-key. Nothing was exported.`
    )
    expect(step.env).toEqual({})
    // Post looks again, by fingerprint.
    expect(JSON.parse(step.state.credential)).toMatchObject({ fingerprint, rejected: true })
    expect(JSON.parse(step.state.credential)).not.toHaveProperty('keyId')
  })

  it('explains a 429 on upload, with the keys-upload limit', async () => {
    const scope = nock(ORIGIN)
      .post(UPLOAD)
      .reply(429, { error: 'too many keys', code: 'RATE_LIMIT', retry_after: 1800 })
    const step = await runMainWith()
    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([
      'Rate limited by the credential service (HTTP 429 RATE_LIMIT: too many keys); keys-upload allows 20 uploads per hour per user. ' +
        'It asks to wait 1800 s, longer than this step waits (60 s), so it stopped instead of sleeping: re-run the job after 2026-11-23T10:30:00Z (in 30 min).'
    ])
    expect(step.env).toEqual({})
    // Saved before the upload, cleared once the 429 said nothing was stored.
    expect(step.state.credential).toBe('')
  })

  it('explains a 403 on upload by the plan rule', async () => {
    nock(ORIGIN).post(UPLOAD).reply(403, { error: 'plan', code: 'FORBIDDEN' })
    const step = await runMainWith()
    expect(step.errors[0]).toMatch(
      /^The API key is not allowed to do this \(403 FORBIDDEN\)\. The service said: plan\. Uploading SSH keys needs an account on the Developer plan or above/
    )
  })

  it('refuses ttl-minutes, which a key lifetime in whole days cannot honour, and sends nothing', async () => {
    const step = await runMainWith({ ...INPUTS, 'ttl-minutes': '5' })
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([expect.stringMatching(/^Input ttl-minutes is "5"/)])
    expect(nock.pendingMocks()).toEqual([])
    expect(step.env).toEqual({})
    expect(readdirSync(runnerTempOf())).toEqual([])
  })

  it.each([
    ['client-id', { 'client-id': '' }, /^Input client-id is empty, and credential is "ssh-key"/],
    [
      'tunnel-host',
      { 'tunnel-host': '' },
      /^Input tunnel-host is empty, and credential is "ssh-key"/
    ],
    ['api-key', { 'api-key': '' }, /^Input api-key is empty, and input credential is "ssh-key"/],
    ['base-url', { 'base-url': '' }, /^Input base-url is empty/]
  ])('fails without %s, naming it, and sends nothing', async (_name, override, message) => {
    const step = await runMainWith({ ...INPUTS, ...override })
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([expect.stringMatching(message)])
    expect(nock.pendingMocks()).toEqual([])
    expect(step.env).toEqual({})
    expect(readdirSync(runnerTempOf())).toEqual([])
  })
})

describe('post with credential: ssh-key', () => {
  async function mainThatSucceeded(): Promise<StepOutcome> {
    acceptUpload()
    const main = await runMainWith()
    expect(main.failed).toBe(false)
    return main
  }

  it('revokes the key by id with the API key, then deletes the key file and its folder', async () => {
    const main = await mainThatSucceeded()
    const keyFile = main.env.SVC_TUNNEL_KEY_FILE
    let sentBody: unknown
    const revoke = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
      .post(REVOKE, body => ((sentBody = body), true))
      .reply(200, { success: true, message: 'Key revoked' })

    const post = await runPostAfter(main)

    expect(revoke.isDone()).toBe(true)
    expect(sentBody).toEqual({ key_id: KEY_ID })
    expect(post.failed).toBe(false)
    expect(post.warnings).toEqual([])
    expect(existsSync(keyFile)).toBe(false)
    expect(existsSync(join(keyFile, '..'))).toBe(false)
    const fingerprint = main.outputs['key-fingerprint']
    expect(infoLines(post.lines)).toEqual([
      `Revoked the SSH key ${fingerprint} (id ${KEY_ID}).`,
      `Deleted the private key file and its folder ${join(keyFile, '..')}.`
    ])
    expect(linesLeaking(post, API_KEY)).toEqual([])
  })

  it('takes a 404 as already gone (information, not a warning)', async () => {
    const main = await mainThatSucceeded()
    nock(ORIGIN).post(REVOKE).reply(404, { error: 'not found', code: 'NOT_FOUND' })
    const post = await runPostAfter(main)
    expect(post.warnings).toEqual([])
    expect(infoLines(post.lines)[0]).toBe(
      `The SSH key ${main.outputs['key-fingerprint']} (id ${KEY_ID}) was already revoked or deleted (404); nothing left to do.`
    )
    expect(existsSync(main.env.SVC_TUNNEL_KEY_FILE)).toBe(false)
  })

  it('warns on a 403, naming the cause, without retrying, and still deletes the file', async () => {
    const main = await mainThatSucceeded()
    const revoke = nock(ORIGIN)
      .post(REVOKE)
      .reply(403, { error: 'not your key', code: 'FORBIDDEN' })
    const post = await runPostAfter(main)
    expect(revoke.isDone()).toBe(true)
    expect(post.failed).toBe(false)
    expect(post.warnings).toEqual([
      `Could not revoke the SSH key ${main.outputs['key-fingerprint']} (id ${KEY_ID}): The API key is not allowed to do this (403 FORBIDDEN). ` +
        'The service said: not your key. The key belongs to another account than the API key used to revoke it: revoke with an API key of the account that uploaded it. ' +
        'It expires by itself at 2026-11-24T10:00:00Z.'
    ])
    expect(existsSync(main.env.SVC_TUNNEL_KEY_FILE)).toBe(false)
  })

  it('fails on a 401 with fail-on-revoke-error', async () => {
    const main = await mainThatSucceeded()
    nock(ORIGIN).post(REVOKE).reply(401, { error: 'bad key', code: 'UNAUTHORIZED' })
    const post = await runPostAfter(main, { ...INPUTS, 'fail-on-revoke-error': 'true' })
    expect(post.failed).toBe(true)
    expect(post.errors[0]).toMatch(
      /^Could not revoke the SSH key .*: The API key was rejected \(401/
    )
    expect(existsSync(main.env.SVC_TUNNEL_KEY_FILE)).toBe(false)
  })

  it('retries 5xx as for tokens, then warns', async () => {
    const main = await mainThatSucceeded()
    const revoke = nock(ORIGIN).post(REVOKE).times(3).reply(503, { error: 'down' })
    const post = await runPostAfter(main)
    expect(revoke.isDone()).toBe(true)
    expect(post.warnings[0]).toMatch(/Gave up after 3 attempts \(input max-attempts\)/)
  })

  it('with revoke false, keeps the key but still deletes the private key file', async () => {
    const main = await mainThatSucceeded()
    const post = await runPostAfter(main, { ...INPUTS, revoke: 'false' })
    expect(nock.pendingMocks()).toEqual([])
    expect(infoLines(post.lines)[0]).toBe(
      `Not revoking the SSH key ${main.outputs['key-fingerprint']} (id ${KEY_ID}): input revoke is false. It expires by itself at 2026-11-24T10:00:00Z.`
    )
    expect(existsSync(main.env.SVC_TUNNEL_KEY_FILE)).toBe(false)
  })

  it('deletes no folder but its own, whatever saved state names', async () => {
    const precious = mkdtempSync(join(tmpdir(), 'dot-ssh-'))
    writeFileSync(join(precious, 'id_ed25519'), 'the user key')
    try {
      const main = await mainThatSucceeded()
      const forged = JSON.parse(main.state.credential) as Record<string, unknown>
      nock(ORIGIN).post(REVOKE).reply(200, { success: true })
      const post = await runPostAfter({
        ...main,
        state: { ...main.state, credential: JSON.stringify({ ...forged, keyFolder: precious }) }
      })
      expect(readFileSync(join(precious, 'id_ed25519'), 'utf8')).toBe('the user key')
      expect(post.warnings).toEqual([
        `Not deleting ${precious}: saved state names it as the key folder, but it is not a folder this tool makes under RUNNER_TEMP.`
      ])
    } finally {
      rmSync(precious, { recursive: true, force: true })
    }
  })

  it('deletes nothing through a key folder swapped for a link to ~/.ssh', async () => {
    const home = mkdtempSync(join(tmpdir(), 'home-'))
    const dotSsh = join(home, '.ssh')
    mkdirSync(dotSsh)
    writeFileSync(join(dotSsh, 'id_ed25519'), 'the user key')
    try {
      const main = await mainThatSucceeded()
      const folder = join(main.env.SVC_TUNNEL_KEY_FILE, '..')
      // A later step of the job puts a link where the key folder was.
      rmSync(folder, { recursive: true })
      symlinkSync(dotSsh, folder)
      nock(ORIGIN).post(REVOKE).reply(200, { success: true })
      const post = await runPostAfter(main)
      expect(readFileSync(join(dotSsh, 'id_ed25519'), 'utf8')).toBe('the user key')
      expect(lstatSync(folder).isSymbolicLink()).toBe(true)
      expect(post.warnings).toEqual([
        `Not deleting anything in the key folder ${folder}: it is a symbolic link, not the directory this tool made. Something other than this tool changed it; check what it points to.`
      ])
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it("deletes nothing in another folder put at the key folder's path", async () => {
    const main = await mainThatSucceeded()
    const folder = join(main.env.SVC_TUNNEL_KEY_FILE, '..')
    rmSync(folder, { recursive: true })
    mkdirSync(folder)
    writeFileSync(join(folder, 'id_ed25519'), 'not the action key')
    nock(ORIGIN).post(REVOKE).reply(200, { success: true })
    const post = await runPostAfter(main)
    expect(readFileSync(join(folder, 'id_ed25519'), 'utf8')).toBe('not the action key')
    expect(post.warnings).toEqual([
      `Not deleting anything in the key folder ${folder}: it is another directory than the one this tool made. Something other than this tool changed it; check what it points to.`
    ])
  })

  it('revokes a key main refused even with revoke: false', async () => {
    acceptUpload(() => ({ public_key_fingerprint: 'SHA256:bm90IHRoaXMga2V5' }))
    nock(ORIGIN).post(REVOKE).reply(503, { error: 'down' })
    const main = await runMainWith({ ...INPUTS, revoke: 'false', 'max-attempts': '1' })
    expect(main.failed).toBe(true)
    const revoke = nock(ORIGIN).post(REVOKE, { key_id: KEY_ID }).reply(200, { success: true })
    const post = await runPostAfter(main, { ...INPUTS, revoke: 'false' })
    expect(revoke.isDone()).toBe(true)
    expect(infoLines(post.lines)).toEqual([
      `Revoked the SSH key ${JSON.parse(main.state.credential).fingerprint} (id ${KEY_ID}).`
    ])
  })

  it('revokes the saved key as the kind it records when the inputs name another, and warns', async () => {
    const main = await mainThatSucceeded()
    const revoke = nock(ORIGIN).post(REVOKE, { key_id: KEY_ID }).reply(200, { success: true })
    const post = await runPostAfter(main, { 'api-key': API_KEY, 'base-url': BASE_URL })
    expect(revoke.isDone()).toBe(true)
    expect(post.warnings).toEqual([expect.stringMatching(/"ssh-key".*input credential is "cicd"/)])
    expect(post.failed).toBe(false)
    // Nothing is left: neither the key at the service nor its private half on the runner.
    expect(existsSync(main.env.SVC_TUNNEL_KEY_FILE)).toBe(false)
  })

  it('sends the API key only to the base-url input of the post step', async () => {
    const main = await mainThatSucceeded()
    const elsewhere = nock('https://other.example.test')
      .post('/functions/v1/revoke-ssh-key', { key_id: KEY_ID })
      .reply(200, { success: true })
    await runPostAfter(main, { ...INPUTS, 'base-url': 'https://other.example.test' })
    expect(elsewhere.isDone()).toBe(true)
  })
})
