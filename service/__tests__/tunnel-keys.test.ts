/** Public-key logins to the tunnel stand-in, with ssh2's own Client: user = the key's client_id. */
import { ed25519KeyPair } from './helpers/ed25519.js'
import ssh2, { type ConnectConfig } from 'ssh2'
import { startCredentialService, type RunningService } from '../server.js'

const { Client } = ssh2
type Client = InstanceType<typeof Client>
const DAY = 24 * 60 * 60 * 1000
let clock = Date.now()
let service: RunningService
const clients: Client[] = []

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 20 }, now: () => clock })
})
afterEach(() => {
  for (const client of clients.splice(0)) client.end()
})
afterAll(() => service.close())

const tunnel = () => service.tunnel!

interface UploadedKey {
  id: string
  privateKey: string
  clientId: string
}

let counter = 0
async function uploadKey(
  extra: Record<string, unknown> = {},
  apiKey = service.seed.provisionKey
): Promise<UploadedKey> {
  const pair = ed25519KeyPair()
  counter += 1
  const clientId = `runner${counter}`
  const response = await fetch(`${service.baseUrl}/keys-upload`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ public_key_ssh: pair.public, name: 'ci', client_id: clientId, ...extra })
  })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { key_id: string }
  return { id: body.key_id, privateKey: pair.private, clientId }
}

async function revokeKey(id: string): Promise<void> {
  const response = await fetch(`${service.baseUrl}/revoke-ssh-key`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ key_id: id })
  })
  expect(response.status).toBe(200)
}

/** Logs in with the key; resolves with the ready client or rejects with ssh2's error. */
function connect(
  username: string,
  privateKey: string,
  extra: Partial<ConnectConfig> = {}
): Promise<Client> {
  const client = new Client()
  clients.push(client)
  return new Promise((resolve, reject) => {
    client.on('ready', () => resolve(client))
    client.on('error', reject)
    client.connect({
      host: '127.0.0.1',
      port: tunnel().port,
      username,
      privateKey,
      readyTimeout: 5000,
      ...extra
    })
  })
}

const forward = (client: Client, name: string): Promise<void> =>
  new Promise((resolve, reject) =>
    client.forwardIn(name, 80, error => (error === undefined ? resolve() : reject(error)))
  )

const closed = (client: Client) => new Promise<void>(resolve => client.once('close', resolve))
const authFailure = expect.objectContaining({ level: 'client-authentication' })
const lastEventOf = (user: string) =>
  tunnel()
    .events()
    .filter(event => event.user === user)
    .at(-1)

describe('public-key login as the client_id the key was uploaded with', () => {
  it('accepts an active key and lets it forward', async () => {
    const key = await uploadKey()
    const client = await connect(key.clientId, key.privateKey)
    expect(lastEventOf(key.clientId)).toMatchObject({ event: 'connected', detail: 'ssh-key' })
    await forward(client, 'app')
    expect(tunnel().forwards()).toContainEqual({
      user: key.clientId,
      name: 'app',
      host: `app-${key.clientId}.localhost`
    })
  })

  it("forwards as the project's default client id, and the front routes to it", async () => {
    const registered = await fetch(`${service.baseUrl}/project-register`, {
      method: 'POST',
      headers: { 'x-api-key': service.seed.provisionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'routed-keys', name: 'Routed keys' })
    })
    const clientId = ((await registered.json()) as { project: { default_client_id: string } })
      .project.default_client_id
    const key = await uploadKey({ client_id: clientId })
    const client = await connect(clientId, key.privateKey)
    await forward(client, 'app')
    expect(tunnel().forwards()).toContainEqual({
      user: clientId,
      name: 'app',
      host: `app-${clientId}.localhost`
    })
  })

  it('refuses a forward of a client id no host name can hold, saying why', async () => {
    const key = await uploadKey({ client_id: 'ci_runner' })
    const client = await connect('ci_runner', key.privateKey)
    await expect(forward(client, 'app')).rejects.toBeDefined()
    expect(lastEventOf('ci_runner')).toMatchObject({
      event: 'forward refused',
      detail: expect.stringContaining('the tunnel user ci_runner is not a lower-case DNS label')
    })
  })

  it('accepts RSA and ECDSA keys too', async () => {
    for (const [type, bits] of [
      ['rsa', 2048],
      ['ecdsa', 256]
    ] as const) {
      const pair = ssh2.utils.generateKeyPairSync(type, { bits })
      const response = await fetch(`${service.baseUrl}/keys-upload`, {
        method: 'POST',
        headers: { 'x-api-key': service.seed.provisionKey },
        body: JSON.stringify({ public_key_ssh: pair.public, name: type, client_id: `k-${type}` })
      })
      expect(response.status).toBe(200)
      await connect(`k-${type}`, pair.private)
      expect(lastEventOf(`k-${type}`)).toMatchObject({ event: 'connected' })
    }
  })

  it('refuses the key as another client_id', async () => {
    const key = await uploadKey()
    const other = await uploadKey()
    await expect(connect(other.clientId, key.privateKey)).rejects.toEqual(authFailure)
    expect(lastEventOf(other.clientId)).toMatchObject({
      event: 'refused',
      detail: 'no key uploaded with this client_id'
    })
  })

  it('refuses a key that was never uploaded, and one uploaded without a client_id', async () => {
    const key = await uploadKey()
    const stranger = ed25519KeyPair()
    await expect(connect(key.clientId, stranger.private)).rejects.toEqual(authFailure)
    const unbound = await uploadKey({ client_id: undefined })
    await expect(connect(unbound.clientId, unbound.privateKey)).rejects.toEqual(authFailure)
  })

  it('refuses a revoked key', async () => {
    const key = await uploadKey()
    await revokeKey(key.id)
    await expect(connect(key.clientId, key.privateKey)).rejects.toEqual(authFailure)
    expect(lastEventOf(key.clientId)).toMatchObject({
      event: 'refused',
      detail: 'credential revoked'
    })
  })

  it('refuses an expired key, by its expires_in_days or at once from the admin control', async () => {
    const key = await uploadKey({ expires_in_days: 1 })
    clock += DAY
    try {
      await expect(connect(key.clientId, key.privateKey)).rejects.toEqual(authFailure)
    } finally {
      clock -= DAY
    }
    expect(lastEventOf(key.clientId)).toMatchObject({
      event: 'refused',
      detail: 'credential expired'
    })

    const other = await uploadKey()
    service.expireSshKey(other.id)
    await expect(connect(other.clientId, other.privateKey)).rejects.toEqual(authFailure)
    expect(() => service.expireSshKey('no-such-key')).toThrow('Unknown SSH key: no-such-key')
  })

  it("keeps accepting the second owner's key after the first owner's revoke is refused (403)", async () => {
    const key = await uploadKey({}, service.seed.secondOwnerKey)
    const refused = await fetch(`${service.baseUrl}/revoke-ssh-key`, {
      method: 'POST',
      headers: { 'x-api-key': service.seed.provisionKey },
      body: JSON.stringify({ key_id: key.id })
    })
    expect(refused.status).toBe(403)
    await connect(key.clientId, key.privateKey)
  })

  it('refuses a signature made with another private key for the uploaded public key', async () => {
    const key = await uploadKey()
    const impostor = ssh2.utils.parseKey(ed25519KeyPair().private)
    const uploaded = ssh2.utils.parseKey(key.privateKey)
    if (impostor instanceof Error || uploaded instanceof Error) throw new Error('unparsable key')
    // Offers the uploaded public key, so the probe passes, then signs with the impostor's key.
    class ImpostorAgent extends ssh2.BaseAgent<ssh2.ParsedKey> {
      getIdentities(cb: (error: Error | undefined, keys?: ssh2.ParsedKey[]) => void): void {
        if (uploaded instanceof Error) return
        cb(undefined, [uploaded])
      }
      sign(
        _key: ssh2.ParsedKey,
        data: Buffer,
        options: unknown,
        cb?: (error: Error | undefined, signature?: Buffer) => void
      ): void {
        const done = typeof options === 'function' ? (options as typeof cb) : cb
        if (impostor instanceof Error) return
        done?.(undefined, impostor.sign(data) as Buffer)
      }
    }
    await expect(
      connect(key.clientId, '', { privateKey: undefined, agent: new ImpostorAgent() })
    ).rejects.toEqual(authFailure)
    expect(lastEventOf(key.clientId)).toMatchObject({ event: 'refused', detail: 'bad signature' })
  })

  it('still refuses a password for a key-only client_id', async () => {
    const key = await uploadKey()
    await expect(
      connect(key.clientId, '', { privateKey: undefined, password: 'tok_guess' })
    ).rejects.toEqual(authFailure)
    expect(lastEventOf(key.clientId)).toMatchObject({
      event: 'refused',
      detail: 'unknown tunnel user'
    })
  })
})

describe('sessions end when the key does', () => {
  it('closes an open session and its forwards when the key is revoked', async () => {
    const key = await uploadKey()
    const client = await connect(key.clientId, key.privateKey)
    await forward(client, 'app')
    const ended = closed(client)
    await revokeKey(key.id)
    await ended
    expect(
      tunnel()
        .forwards()
        .filter(f => f.user === key.clientId)
    ).toEqual([])
    expect(lastEventOf(key.clientId)).toMatchObject({
      event: 'closed',
      detail: 'credential revoked'
    })
  })

  it('closes an open session when the key expires', async () => {
    const key = await uploadKey({ expires_in_days: 1 })
    const client = await connect(key.clientId, key.privateKey)
    const ended = closed(client)
    clock += DAY
    try {
      await ended
    } finally {
      clock -= DAY
    }
    expect(lastEventOf(key.clientId)).toMatchObject({
      event: 'closed',
      detail: 'credential expired'
    })
  })
})
