import { jest } from '@jest/globals'
import { KeyObject, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { repoRoot } from '../../../../../scripts/runner.js'
import {
  keysAsKeyObjects,
  SSH2_CHECKED_VERSION
} from '../../../../../src/core/tunnel/keeper/ssh/cipher-keys.js'

const require = createRequire(import.meta.url)
const installedSsh2 = (require('ssh2/package.json') as { version: string }).version

// As in dist/tunnel/index.cjs, which leaves ssh2's native addon out: without it ssh2 takes the
// JavaScript ciphers whose keys keysAsKeyObjects converts. Registered before ssh2 first loads.
jest.mock('ssh2/lib/protocol/crypto/build/Release/sshcrypto.node', () => {
  throw new Error('no native addon, as in the bundle')
})
const { Client, Server, utils } = await import('ssh2')

function clientWithKeys() {
  const keys = {
    encKey: randomBytes(16),
    decipherKey: randomBytes(16),
    macKey: randomBytes(32)
  }
  const client = {
    _protocol: {
      _cipher: { _encKey: keys.encKey } as Record<string, unknown>,
      _decipher: { _decipherKey: keys.decipherKey, _macKey: keys.macKey } as Record<string, unknown>
    }
  }
  return { client, keys }
}

describe('keysAsKeyObjects', () => {
  it("turns the Buffer keys of ssh2's JavaScript ciphers into KeyObjects of the same key", () => {
    const { client, keys } = clientWithKeys()
    expect(keysAsKeyObjects(client)).toBe(3)
    const { _cipher, _decipher } = client._protocol as unknown as Record<
      string,
      Record<string, KeyObject>
    >
    expect(_cipher._encKey.export()).toEqual(keys.encKey)
    expect(_decipher._decipherKey.export()).toEqual(keys.decipherKey)
    expect(_decipher._macKey.export()).toEqual(keys.macKey)
    // A second call (another key exchange with the same objects) finds nothing to do.
    expect(keysAsKeyObjects(client)).toBe(0)
  })

  it.each(['1.17.1', '1.16.0', '2.0.0', ''])(
    'leaves every field untouched with ssh2 %j, whose private fields nobody checked',
    version => {
      const { client, keys } = clientWithKeys()
      expect(keysAsKeyObjects(client, version)).toBe(0)
      expect(client._protocol._cipher).toEqual({ _encKey: keys.encKey })
      expect(client._protocol._decipher).toEqual({
        _decipherKey: keys.decipherKey,
        _macKey: keys.macKey
      })
      expect(Buffer.isBuffer(client._protocol._cipher._encKey)).toBe(true)
    }
  )

  it('leaves a client alone that has no such fields (native ciphers, not connected yet)', () => {
    const native = { _protocol: { _cipher: { _instance: {} }, _decipher: undefined } }
    expect(keysAsKeyObjects(native)).toBe(0)
    expect(keysAsKeyObjects({})).toBe(0)
    expect(native._protocol._cipher).toEqual({ _instance: {} })
  })
})

describe('the ssh2 release keysAsKeyObjects was written for', () => {
  it('is the installed one (after an ssh2 update, follow the checklist in docs/performance.md)', () => {
    // Fails on every ssh2 update: in the meantime the keeper quietly skips the conversion, and
    // the tunnel works, only slower. Check the fields below, then move SSH2_CHECKED_VERSION.
    if (installedSsh2 !== SSH2_CHECKED_VERSION) {
      throw new Error(
        `ssh2 is ${installedSsh2}; src/core/tunnel/keeper/ssh/cipher-keys.ts was checked against ${SSH2_CHECKED_VERSION}. ` +
          'See "Upgrading ssh2" in docs/performance.md.'
      )
    }
  })

  it('keeps the keys of its JavaScript ciphers in the fields keysAsKeyObjects converts', () => {
    const source = readFileSync(require.resolve('ssh2/lib/protocol/crypto.js'), 'utf8')
    expect(source).toContain('this._encKey = enc.cipherKey;')
    expect(source).toContain('this._decipherKey = dec.decipherKey;')
    expect(source).toContain('this._macKey = enc.macKey;')
    expect(source).toContain('this._macKey = dec.macKey;')
  })
})

describe('the tunnel bundle (dist/tunnel/)', () => {
  const dir = join(repoRoot, 'dist', 'tunnel')
  const bundle = () => readFileSync(join(dir, 'index.cjs'), 'utf8')

  it("holds no native addon, so the keeper takes ssh2's JavaScript ciphers on every machine", () => {
    const files = readdirSync(dir, { recursive: true }).map(String)
    expect(files.filter(name => name.endsWith('.node'))).toEqual([])
    expect(bundle()).toContain('cpu-features is not bundled with this action')
  })

  it("gives keysAsKeyObjects the bundled ssh2's version", () => {
    // webpack keeps the one field both ssh2 and cipher-keys.ts read, under a short name.
    const inlined = /^module\.exports = \{"(\w+)":"([\d.]+)"\};$/m.exec(bundle())
    expect(inlined?.[2]).toBe(installedSsh2)
    expect(bundle()).toMatch(
      new RegExp(`ssh2Version = \\w+(/\\* version \\*/)?\\.${inlined?.[1]}\\)`)
    )
  })
})

/**
 * One SSH connection between ssh2's client and server in this process, with keysAsKeyObjects
 * run on the client after every key exchange as the keeper does; `cat` on the server sends back
 * what the client writes. Returns what came back and the client's keys afterwards.
 */
async function echoThroughSsh(cipher: string, ssh2Version: string) {
  // ECDSA: ssh2 1.17.0 writes about 1 ed25519 key in 400 that it cannot read back.
  const hostKey = utils.generateKeyPairSync('ecdsa', { bits: 256 }).private
  const server = new Server({ hostKeys: [hostKey] }, connection => {
    connection.on('authentication', context => context.accept())
    connection.on('ready', () =>
      connection.on('session', accept =>
        accept().on('exec', acceptExec => {
          const stream = acceptExec()
          stream.on('data', (chunk: Buffer) => stream.write(chunk))
          stream.on('end', () => {
            stream.exit(0)
            stream.end()
          })
        })
      )
    )
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const client = new Client()
  const converted: number[] = []
  client.on('handshake', () => converted.push(keysAsKeyObjects(client, ssh2Version)))
  const payload = randomBytes(300 * 1024)
  try {
    const echoed = await new Promise<Buffer>((resolve, reject) => {
      client.on('error', reject)
      client.on('ready', () =>
        client.exec('cat', (error, stream) => {
          if (error) return reject(error)
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('close', () => resolve(Buffer.concat(chunks)))
          stream.end(payload)
        })
      )
      client.connect({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        username: 'tunnel',
        password: 'unused',
        hostVerifier: () => true,
        algorithms: { cipher: [cipher as never] }
      })
    })
    const { _protocol } = client as unknown as {
      _protocol: { _cipher: Record<string, unknown>; _decipher: Record<string, unknown> }
    }
    const keys = [
      _protocol._cipher._encKey ?? _protocol._cipher._macKey,
      _protocol._decipher._decipherKey ?? _protocol._decipher._macKey
    ]
    return { echoedIntact: echoed.equals(payload), converted, keys }
  } finally {
    client.end()
    await new Promise<void>(resolve => server.close(() => resolve()))
  }
}

describe.each([
  ['aes128-gcm@openssh.com', 'its AES-GCM key'],
  ['aes128-ctr', 'its HMAC key']
])('a connection with %s (%s)', cipher => {
  it('carries data both ways with the keys as KeyObjects', async () => {
    const { echoedIntact, converted, keys } = await echoThroughSsh(cipher, SSH2_CHECKED_VERSION)
    expect(echoedIntact).toBe(true)
    expect(converted[0]).toBe(2)
    expect(keys.every(key => key instanceof KeyObject)).toBe(true)
  })

  it('carries data both ways, keys untouched, when ssh2 is another version', async () => {
    const { echoedIntact, converted, keys } = await echoThroughSsh(cipher, '1.18.0')
    expect(echoedIntact).toBe(true)
    expect(converted[0]).toBe(0)
    expect(keys.every(key => Buffer.isBuffer(key))).toBe(true)
  })
})
