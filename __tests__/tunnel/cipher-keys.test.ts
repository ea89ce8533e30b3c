import { KeyObject, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { keysAsKeyObjects } from '../../src/tunnel/cipher-keys.js'

describe('keysAsKeyObjects', () => {
  it("turns the Buffer keys of ssh2's JavaScript ciphers into KeyObjects of the same key", () => {
    const encKey = randomBytes(16)
    const decipherKey = randomBytes(16)
    const macKey = randomBytes(32)
    const client = {
      _protocol: {
        _cipher: { _encKey: encKey },
        _decipher: { _decipherKey: decipherKey, _macKey: macKey }
      }
    }
    expect(keysAsKeyObjects(client)).toBe(3)
    const { _cipher, _decipher } = client._protocol as unknown as Record<
      string,
      Record<string, KeyObject>
    >
    expect(_cipher._encKey.export()).toEqual(encKey)
    expect(_decipher._decipherKey.export()).toEqual(decipherKey)
    expect(_decipher._macKey.export()).toEqual(macKey)
    // A second call (another key exchange with the same objects) finds nothing to do.
    expect(keysAsKeyObjects(client)).toBe(0)
  })

  it('leaves a client alone that has no such fields (native ciphers, not connected yet)', () => {
    const native = { _protocol: { _cipher: { _instance: {} }, _decipher: undefined } }
    expect(keysAsKeyObjects(native)).toBe(0)
    expect(keysAsKeyObjects({})).toBe(0)
    expect(native._protocol._cipher).toEqual({ _instance: {} })
  })

  it("matches the fields where ssh2's JavaScript ciphers keep their keys", () => {
    // Fails when an ssh2 upgrade moves them: the keeper would then quietly lose the gain.
    const require = createRequire(import.meta.url)
    const source = readFileSync(require.resolve('ssh2/lib/protocol/crypto.js'), 'utf8')
    expect(source).toContain('this._encKey = enc.cipherKey;')
    expect(source).toContain('this._decipherKey = dec.decipherKey;')
    expect(source).toContain('this._macKey = enc.macKey;')
    expect(source).toContain('this._macKey = dec.macKey;')
  })
})
