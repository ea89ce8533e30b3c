/**
 * Which host keys the keeper trusts: pins of any key type on a server that holds several keys,
 * and trust on first use that means the first key ever seen. The token must never reach a key
 * that is not trusted.
 */
import { hostKeyAlgorithms } from '../../../../../src/core/tunnel/keeper/ssh/host-keys.js'
import {
  cleanUp,
  hostKey,
  runKeeper,
  startRelay,
  startStandIn,
  type HostKey
} from '../../../../helpers/ssh-stand-in.js'

afterEach(cleanUp)

describe('hostKeyAlgorithms', () => {
  it("keeps ssh2's defaults without typed pins", () => {
    expect(hostKeyAlgorithms([])).toBeUndefined()
    expect(hostKeyAlgorithms([{ fingerprint: 'SHA256:x' }])).toBeUndefined()
  })

  it('offers the pinned key types first, as OpenSSH does with known_hosts', () => {
    expect(hostKeyAlgorithms([{ fingerprint: 'SHA256:x', keyType: 'ssh-rsa' }])).toEqual([
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
      'ssh-ed25519',
      'ecdsa-sha2-nistp256',
      'ecdsa-sha2-nistp384',
      'ecdsa-sha2-nistp521'
    ])
  })

  it('leaves out the types of keys the server already showed', () => {
    expect(hostKeyAlgorithms([{ fingerprint: 'SHA256:x' }], new Set(['ssh-ed25519']))).toEqual([
      'ecdsa-sha2-nistp256',
      'ecdsa-sha2-nistp384',
      'ecdsa-sha2-nistp521',
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa'
    ])
  })
})

describe('pins on a server with several host keys', () => {
  let keys: Record<'ed25519' | 'rsa' | 'ecdsa', HostKey>
  beforeAll(() => {
    keys = { ed25519: hostKey('ed25519'), rsa: hostKey('rsa'), ecdsa: hostKey('ecdsa') }
  })
  const allKeys = () => [keys.ed25519, keys.rsa, keys.ecdsa]

  it.each(['rsa', 'ecdsa'] as const)(
    'connects with a bare SHA256 fingerprint of its %s key',
    async type => {
      const server = await startStandIn({ hostKeys: allKeys() })
      const keeper = runKeeper(server.port, {
        hostKeyPins: [{ fingerprint: keys[type].fingerprint }]
      })
      expect(await keeper.report).toEqual({ type: 'ready', fingerprint: keys[type].fingerprint })
      // One login, to the pinned key: the connections that showed another key sent nothing.
      expect(server.logins).toEqual([{ password: 'tok_standin', accepted: true }])
    }
  )

  it('reports a refused login as such once the pinned key was found', async () => {
    const server = await startStandIn({ hostKeys: allKeys(), accept: () => false })
    const keeper = runKeeper(server.port, {
      hostKeyPins: [{ fingerprint: keys.rsa.fingerprint }]
    })
    expect(await keeper.report).toMatchObject({
      type: 'failed',
      cause: 'auth',
      fingerprint: keys.rsa.fingerprint
    })
    expect(server.logins).toHaveLength(1)
  })

  it('connects with a known_hosts line of its RSA key, offering that type first', async () => {
    const server = await startStandIn({ hostKeys: allKeys() })
    const keeper = runKeeper(server.port, {
      hostKeyPins: [{ fingerprint: keys.rsa.fingerprint, keyType: 'ssh-rsa' }]
    })
    expect(await keeper.report).toEqual({ type: 'ready', fingerprint: keys.rsa.fingerprint })
    expect(server.handshakes).toBe(1)
    expect(keeper.log()).not.toContain('not trusted')
  })

  it('still refuses, before any login, a server that holds none of the pinned keys', async () => {
    const other = hostKey('rsa')
    const server = await startStandIn({ hostKeys: allKeys() })
    const keeper = runKeeper(server.port, {
      hostKeyPins: [{ fingerprint: other.fingerprint }],
      maxAttempts: 3
    })
    expect(await keeper.report).toEqual({
      type: 'failed',
      cause: 'host-key',
      detail: `the tunnel server's host key is ${keys.ed25519.fingerprint}, which tunnel-host-key does not list`,
      fingerprint: expect.stringMatching(/^SHA256:/)
    })
    expect(server.logins).toEqual([])
    expect(keeper.log()).not.toContain('Attempt 2')
  })

  it('names the option as main labels it', async () => {
    const server = await startStandIn({ hostKeys: [keys.ed25519] })
    const keeper = runKeeper(server.port, {
      hostKeyPins: [{ fingerprint: hostKey('rsa').fingerprint }],
      hostKeyOptionName: '--tunnel-host-key'
    })
    expect(await keeper.report).toMatchObject({
      detail: `the tunnel server's host key is ${keys.ed25519.fingerprint}, which --tunnel-host-key does not list`
    })
  })
})

describe('trust on first use', () => {
  it('trusts the first key it ever saw, even when that attempt failed, and sends no token to another', async () => {
    const first = await startStandIn({ hostKeys: [hostKey('ed25519')], dropAfterHandshake: true })
    const impostor = await startStandIn({ hostKeys: [hostKey('ed25519')] })
    const relay = await startRelay(first.port)
    // The first attempt reaches the first server, which drops the connection after its key
    // exchange; the second reaches another server with another key.
    const keeper = runKeeper(relay.port, { maxAttempts: 2 })
    const switched = setInterval(() => {
      if (first.handshakes > 0) relay.to(impostor.port)
    }, 1)
    try {
      const report = await keeper.report
      expect(report).toMatchObject({
        type: 'failed',
        cause: 'host-key',
        detail: expect.stringMatching(
          /^the tunnel server's host key changed from SHA256:\S+ to SHA256:/
        )
      })
    } finally {
      clearInterval(switched)
    }
    expect(relay.connections).toBe(2)
    expect(impostor.logins).toEqual([])
  })
})
