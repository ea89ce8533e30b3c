/**
 * The server's console against OpenSSH's own server, where a shell request starts the user's
 * shell (here a ForceCommand that does nothing, through the user's shell and its startup files),
 * and sshd's log says "Starting session" for each. A tunnel that starts must start none; only a
 * refused forward opens the console (to read why), once. sshd
 * binds each forward on the address the keeper names (GatewayPorts clientspecified), so the
 * test picks a loopback address of its own, and one that cannot be bound for a refusal.
 * Skipped where sshd is not installed or the tests do not run as root (sshd logs in only as root
 * here, with a key of the test's own).
 */
import { appendFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { startLocalApp } from '../../../../../scripts/openssh.js'
import {
  openSshServer,
  sshdUsable,
  type OpenSshServer
} from '../../../../helpers/openssh-server.js'
import { cleanUp, eventually, runKeeper } from '../../../../helpers/ssh-stand-in.js'

const usable = sshdUsable() && process.getuid?.() === 0
const withSshd = usable ? describe : describe.skip

withSshd('the console on OpenSSH sshd, whose shell request runs a command', () => {
  let sshd: OpenSshServer
  let app: Awaited<ReturnType<typeof startLocalApp>>
  const shellsStarted = (): number => sshd.log().split('Starting session:').length - 1

  beforeAll(async () => {
    sshd = await openSshServer()
    sshd.makeKey('host', 'ed25519')
    sshd.makeKey('client', 'ed25519')
    appendFileSync(join(sshd.dir, 'authorized_keys'), `${sshd.publicKey('client')}\n`)
    await sshd.start(
      ['host'],
      [
        `AuthorizedKeysFile ${join(sshd.dir, 'authorized_keys')}`,
        'PermitRootLogin prohibit-password',
        'GatewayPorts clientspecified',
        // "Starting session: …" is logged at VERBOSE.
        'LogLevel VERBOSE',
        'ForceCommand true'
      ]
    )
    app = await startLocalApp('answer through sshd')
  })
  afterEach(cleanUp)
  afterAll(async () => {
    await app?.close()
    await sshd?.stop()
  })

  const keeperFor = (bindAddress: string) =>
    runKeeper(sshd.port, {
      user: userInfo().username,
      token: undefined,
      privateKeyPath: join(sshd.dir, 'client'),
      hostKeyPins: [{ fingerprint: sshd.fingerprintOfKey('host') }],
      entries: [{ name: bindAddress, host: '127.0.0.1', port: app.port }]
    })

  it('starts no shell on the server when every forward is accepted', async () => {
    // A loopback address of this test's own, so port 80 on it is free whatever else runs.
    const address = `127.${40 + Math.floor(Math.random() * 200)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`
    const keeper = keeperFor(address)
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    const answer = await fetch(`http://${address}:80/`)
    expect(await answer.text()).toBe('answer through sshd (GET /)\n')
    // A shell the keeper had asked for would have started by now, as the request went through.
    await new Promise(resolve => setTimeout(resolve, 300))
    expect(shellsStarted()).toBe(0)
  })

  it('opens the console once after a refused forward, and keeps the message of old', async () => {
    const before = shellsStarted()
    // TEST-NET-1 (RFC 5737): no interface holds it, so sshd cannot bind the forward there.
    const keeper = keeperFor('192.0.2.1')
    expect(await keeper.report).toMatchObject({
      type: 'failed',
      cause: 'forward',
      name: '192.0.2.1',
      detail: 'the tunnel server refused the forward for "192.0.2.1"'
    })
    expect(
      await eventually(
        () => shellsStarted(),
        count => count > before
      )
    ).toBe(before + 1)
  })
})
