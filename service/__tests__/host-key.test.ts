/** The stand-in's host key: always one that ssh2's own server can load. */
import ssh2 from 'ssh2'
import { generateHostKey } from '../tunnel/host-key.js'
import { ed25519KeyPair } from './helpers/ed25519.js'

// Made by ssh2 1.17.0's generateKeyPairSync('ed25519') for a public key whose first byte is 0:
// the key is written 31 bytes long, and ssh2 cannot read it back.
const MALFORMED = {
  private: [
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMgAAAAtz',
    'c2gtZWQyNTUxOQAAAB911rgeMq/0+DA/VxkGJ0yu6jbOjscYD63Lx+UL/F+BAAAA',
    'iJFpWjGRaVoxAAAAC3NzaC1lZDI1NTE5AAAAH3XWuB4yr/T4MD9XGQYnTK7qNs6O',
    'xxgPrcvH5Qv8X4EAAAA/4YKH6A89kukBaCqrCm5vuy02NESnk14r7295M7iEsoR1',
    '1rgeMq/0+DA/VxkGJ0yu6jbOjscYD63Lx+UL/F+BAAAAAAECAwQFBgc=',
    '-----END OPENSSH PRIVATE KEY-----',
    ''
  ].join('\n'),
  public: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAH3XWuB4yr/T4MD9XGQYnTK7qNs6OxxgPrcvH5Qv8X4E'
}

describe('generateHostKey', () => {
  it('throws away a key ssh2 cannot read and makes another', () => {
    expect(ssh2.utils.parseKey(MALFORMED.private)).toBeInstanceOf(Error)
    // A readable pair: ssh2's own generator makes a malformed one about 1 time in 256.
    const good = ed25519KeyPair()
    const made = [MALFORMED, good]
    const key = generateHostKey(() => made.shift()!)
    expect(made).toEqual([])
    expect(key.privateKey).toBe(good.private)
    expect(key.publicKey).toBe(good.public.trim().split(/\s+/).slice(0, 2).join(' '))
    expect(() => new ssh2.Server({ hostKeys: [key.privateKey] }, () => undefined)).not.toThrow()
  })

  it('gives up with a clear error rather than loop forever', () => {
    expect(() => generateHostKey(() => MALFORMED)).toThrow(
      'could not make a host key that ssh2 can read'
    )
  })
})
