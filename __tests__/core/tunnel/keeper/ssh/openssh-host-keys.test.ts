/**
 * Host-key pins against OpenSSH's own server, which holds an ed25519 and an RSA key and offers
 * ed25519 first: a pin of the RSA key must get the keeper past the host key check (to the login,
 * which this sshd refuses: it knows no such user). Skipped where sshd is not installed.
 */
import { existsSync } from 'node:fs'
import {
  openSshServer,
  sshdUsable,
  type OpenSshServer
} from '../../../../helpers/openssh-server.js'
import { cleanUp, runKeeper } from '../../../../helpers/ssh-stand-in.js'

const usable = sshdUsable()
// CI installs openssh-server (.ci/run): there, a missing sshd is a broken set-up, not a skip.
const withSshd = usable ? describe : describe.skip

if (!usable && process.env.CI === 'true') {
  it('has OpenSSH sshd to pin host keys against (.ci/run installs openssh-server)', () => {
    expect(existsSync('/usr/sbin/sshd')).toBe(true)
  })
}

withSshd('pins against OpenSSH sshd with ed25519 and RSA host keys', () => {
  let sshd: OpenSshServer

  beforeAll(async () => {
    sshd = await openSshServer()
    for (const type of ['ed25519', 'rsa'] as const) sshd.makeKey(type, type)
    await sshd.start(['ed25519', 'rsa'], [])
  })
  afterEach(cleanUp)
  afterAll(() => sshd?.stop())

  it.each([
    ['a bare SHA256 fingerprint', () => ({ fingerprint: sshd.fingerprintOfKey('rsa') })],
    [
      'a known_hosts line',
      () => ({
        fingerprint: sshd.fingerprintOfKey('rsa'),
        keyType: sshd.publicKey('rsa').split(' ')[0]
      })
    ]
  ])('gets past the host key check with %s of the RSA key', async (_name, pin) => {
    const keeper = runKeeper(sshd.port, { hostKeyPins: [pin()] })
    // Refused as a login, not as a host key: the pinned key was found and trusted.
    expect(await keeper.report).toMatchObject({
      type: 'failed',
      cause: 'auth',
      fingerprint: sshd.fingerprintOfKey('rsa')
    })
  })
})
