/** The SSH key endpoints as a client sees them: keys-upload, user-keys-list, revoke-ssh-key. */
import { ed25519KeyPair } from './helpers/ed25519.js'
import ssh2 from 'ssh2'
import { startCredentialService, type RunningService } from '../server.js'
import { parseSshPublicKey, sshFingerprint } from '../ssh-public-key.js'

const START = Date.parse('2030-01-01T00:00:00.000Z')
const DAY = 24 * 60 * 60 * 1000
let clock = START
let service: RunningService

beforeEach(async () => {
  clock = START
  service = await startCredentialService({ now: () => clock })
})
afterEach(() => service.close())

type Json = Record<string, unknown>

async function call(
  endpoint: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${service.baseUrl}/${endpoint}`, {
    method: init.method ?? 'POST',
    headers: { 'Content-Type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body)
  })
  return { status: response.status, body: (await response.json()) as Json }
}

const first = (): Record<string, string> => ({ 'X-API-Key': service.seed.provisionKey })
const second = (): Record<string, string> => ({ 'X-API-Key': service.seed.secondOwnerKey })
const jwt = (): Record<string, string> => ({ Authorization: `Bearer ${service.seed.jwt}` })

const newPublicLine = (): string => ed25519KeyPair().public.trim()

async function upload(
  headers: Record<string, string> = first(),
  extra: Json = {}
): Promise<{ status: number; body: Json }> {
  return call('keys-upload', {
    headers,
    body: { public_key_ssh: newPublicLine(), name: 'ci-key', ...extra }
  })
}

async function uploadedId(headers: Record<string, string> = first()): Promise<string> {
  const { status, body } = await upload(headers)
  expect(status).toBe(200)
  return body.key_id as string
}

const listed = async (headers: Record<string, string> = first()): Promise<Json[]> => {
  const { status, body } = await call('user-keys-list', { method: 'GET', headers })
  expect(status).toBe(200)
  return body.keys as Json[]
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('keys-upload', () => {
  it.each([
    ['ed25519', {}],
    ['ecdsa', { bits: 256 }],
    ['rsa', { bits: 2048 }]
  ] as const)('accepts an %s key and answers its fingerprint', async (type, options) => {
    const pair =
      type === 'ed25519' ? ed25519KeyPair() : ssh2.utils.generateKeyPairSync(type, options)
    const line = pair.public.trim()
    const { status, body } = await call('keys-upload', {
      headers: first(),
      body: {
        public_key_ssh: `${line} ci@runner`,
        name: 'ci-octo-app-42-1',
        server_type: 'shared',
        expires_in_days: 1,
        client_id: 'ci-runner'
      }
    })
    expect(status).toBe(200)
    expect(body).toEqual({
      key_id: expect.stringMatching(UUID),
      public_key_fingerprint: sshFingerprint(parseSshPublicKey(line).blob),
      server_type: 'shared',
      name: 'ci-octo-app-42-1',
      expires_at: new Date(START + DAY).toISOString()
    })
  })

  it('defaults server_type to "default" and, without expires_in_days, never expires', async () => {
    const { body } = await upload(first(), {})
    expect(body).toMatchObject({ server_type: 'default', expires_at: null })
  })

  it('accepts the seeded JWT and a key without cicd:provision', async () => {
    expect((await upload(jwt())).status).toBe(200)
    expect((await upload({ 'X-API-Key': service.seed.keyWithoutScope })).status).toBe(200)
  })

  it('answers 401 UNAUTHORIZED without credentials, or with unknown ones', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { 'X-API-Key': `sk_${'0'.repeat(64)}` },
      { Authorization: 'Bearer x' }
    ]
    for (const headers of attempts) {
      const { status, body } = await upload(headers)
      expect(status).toBe(401)
      expect(body.code).toBe('UNAUTHORIZED')
    }
  })

  it.each([
    ['no public_key_ssh', { public_key_ssh: undefined }, 'Missing required field: public_key_ssh'],
    ['no name', { name: undefined }, 'Missing required field: name'],
    [
      'a name of 101 characters',
      { name: 'n'.repeat(101) },
      'Field name must be at most 100 characters, got 101'
    ],
    [
      'a DSA key',
      { public_key_ssh: 'ssh-dss AAAAB3NzaC1kc3M=' },
      'Field public_key_ssh is not an accepted SSH public key: the key type must be one of ssh-ed25519, ecdsa-sha2-nistp256, ssh-rsa'
    ],
    [
      'a line whose blob is another type',
      { public_key_ssh: `ssh-rsa ${newPublicLine().split(' ')[1]}` },
      'Field public_key_ssh is not an accepted SSH public key: the line says ssh-rsa but the key blob says "ssh-ed25519"'
    ],
    [
      'expires_in_days 0',
      { expires_in_days: 0 },
      'Field expires_in_days must be an integer from 1 to 365, got 0'
    ],
    [
      'expires_in_days 366',
      { expires_in_days: 366 },
      'Field expires_in_days must be an integer from 1 to 365, got 366'
    ],
    [
      'expires_in_days 1.5',
      { expires_in_days: 1.5 },
      'Field expires_in_days must be an integer from 1 to 365, got 1.5'
    ],
    [
      'expires_in_days "1"',
      { expires_in_days: '1' },
      'Field expires_in_days must be an integer from 1 to 365, got "1"'
    ],
    [
      'a client_id with a space',
      { client_id: 'a b' },
      'Field client_id must be letters, digits, ., _ or -, at most 64, starting with a letter or digit, got "a b"'
    ],
    [
      'a server_type that is not a word',
      { server_type: 'Big Server' },
      'Field server_type must be lowercase letters, digits, _ or -, at most 32, got "Big Server"'
    ]
  ])('answers 400 BAD_REQUEST for %s, and stores nothing', async (_label, change, message) => {
    const { status, body } = await upload(first(), change)
    expect({ status, body }).toEqual({ status: 400, body: { error: message, code: 'BAD_REQUEST' } })
    expect(await listed()).toEqual([])
  })

  it('answers 400 for a body that is not a JSON object', async () => {
    const response = await fetch(`${service.baseUrl}/keys-upload`, {
      method: 'POST',
      headers: first(),
      body: '[1]'
    })
    expect(response.status).toBe(400)
  })

  it('allows 20 uploads per hour per account, then 429 with retry_after', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await upload()).status).toBe(200)
      clock += 60_000
    }
    const refused = await upload()
    expect(refused).toEqual({
      status: 429,
      body: {
        error: 'Rate limit exceeded; retry after 2400 seconds',
        code: 'RATE_LIMIT',
        retry_after: 2400
      }
    })
    // Another account has its own window; the JWT is the same account as the first key.
    expect((await upload(second())).status).toBe(200)
    expect((await upload(jwt())).status).toBe(429)
    clock += 2400_000
    expect((await upload()).status).toBe(200)
  }, 20_000)
})

describe('user-keys-list', () => {
  it("lists the caller's keys with the spec's fields and client_id, oldest first", async () => {
    const line = newPublicLine()
    await call('keys-upload', {
      headers: first(),
      body: { public_key_ssh: line, name: 'one', expires_in_days: 2, client_id: 'runner' }
    })
    clock += 1000
    await upload()
    const keys = await listed()
    expect(keys).toHaveLength(2)
    expect(keys[0]).toEqual({
      id: expect.stringMatching(UUID),
      fingerprint: sshFingerprint(parseSshPublicKey(line).blob),
      name: 'one',
      server_type: 'default',
      status: 'active',
      created_at: new Date(START).toISOString(),
      expires_at: new Date(START + 2 * DAY).toISOString(),
      client_id: 'runner'
    })
    expect(keys[1]).toMatchObject({ name: 'ci-key', client_id: null, expires_at: null })
  })

  it("shows neither account the other's keys", async () => {
    const mine = await uploadedId(first())
    const theirs = await uploadedId(second())
    expect((await listed(first())).map(key => key.id)).toEqual([mine])
    expect((await listed(jwt())).map(key => key.id)).toEqual([mine])
    expect((await listed(second())).map(key => key.id)).toEqual([theirs])
  })

  it('reads a key as expired once expires_in_days have passed', async () => {
    await upload(first(), { expires_in_days: 1 })
    clock += DAY - 1
    expect((await listed())[0].status).toBe('active')
    clock += 1
    expect((await listed())[0].status).toBe('expired')
  })

  it('answers 401 without credentials', async () => {
    const { status, body } = await call('user-keys-list', { method: 'GET' })
    expect(status).toBe(401)
    expect(body.code).toBe('UNAUTHORIZED')
  })
})

describe('revoke-ssh-key', () => {
  it("revokes the caller's key: {success, message}, then the key reads revoked", async () => {
    const id = await uploadedId()
    const { status, body } = await call('revoke-ssh-key', {
      headers: first(),
      body: { key_id: id }
    })
    expect({ status, body }).toEqual({
      status: 200,
      body: { success: true, message: `SSH key ${id} revoked` }
    })
    expect((await listed())[0].status).toBe('revoked')
  })

  it('revokes with the seeded JWT, and an expired key too', async () => {
    const { body } = await upload(first(), { expires_in_days: 1 })
    clock += 2 * DAY
    const revoked = await call('revoke-ssh-key', { headers: jwt(), body: { key_id: body.key_id } })
    expect(revoked.status).toBe(200)
    expect((await listed())[0].status).toBe('revoked')
  })

  it('answers 404 NOT_FOUND for an unknown key and for one already revoked', async () => {
    const id = await uploadedId()
    await call('revoke-ssh-key', { headers: first(), body: { key_id: id } })
    const again = await call('revoke-ssh-key', { headers: first(), body: { key_id: id } })
    expect(again).toEqual({
      status: 404,
      body: { error: `SSH key already revoked: "${id}"`, code: 'NOT_FOUND' }
    })
    const unknown = await call('revoke-ssh-key', {
      headers: first(),
      body: { key_id: '00000000-0000-4000-8000-000000000000' }
    })
    expect(unknown).toEqual({
      status: 404,
      body: {
        error: 'SSH key not found: "00000000-0000-4000-8000-000000000000"',
        code: 'NOT_FOUND'
      }
    })
  })

  it("answers 403 FORBIDDEN for another account's key, both ways, and leaves it active", async () => {
    const theirs = await uploadedId(second())
    const mine = await uploadedId(first())
    const refused = await call('revoke-ssh-key', { headers: first(), body: { key_id: theirs } })
    expect(refused).toEqual({
      status: 403,
      body: { error: `SSH key "${theirs}" belongs to another account`, code: 'FORBIDDEN' }
    })
    expect(
      (await call('revoke-ssh-key', { headers: jwt(), body: { key_id: theirs } })).status
    ).toBe(403)
    expect(
      (await call('revoke-ssh-key', { headers: second(), body: { key_id: mine } })).status
    ).toBe(403)
    expect(service.sshKeys().map(key => key.status)).toEqual(['active', 'active'])
  })

  it("answers 403, not 404, for another account's key that is already revoked", async () => {
    const theirs = await uploadedId(second())
    await call('revoke-ssh-key', { headers: second(), body: { key_id: theirs } })
    expect(
      (await call('revoke-ssh-key', { headers: first(), body: { key_id: theirs } })).status
    ).toBe(403)
  })

  it('answers 401 without credentials and 400 without key_id', async () => {
    const id = await uploadedId()
    expect((await call('revoke-ssh-key', { body: { key_id: id } })).status).toBe(401)
    const missing = await call('revoke-ssh-key', { headers: first(), body: {} })
    expect(missing).toEqual({
      status: 400,
      body: { error: 'Missing required field: key_id', code: 'BAD_REQUEST' }
    })
    expect((await listed())[0].status).toBe('active')
  })

  it('answers 405 for the wrong method', async () => {
    expect((await call('revoke-ssh-key', { method: 'GET', headers: first() })).status).toBe(405)
  })
})
