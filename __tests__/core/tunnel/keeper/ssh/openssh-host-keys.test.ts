/**
 * Host-key pins against OpenSSH's own server, which holds an ed25519 and an RSA key and offers
 * ed25519 first: a pin of the RSA key must get the keeper past the host key check (to the login,
 * which this sshd refuses: it knows no such user). Skipped where sshd is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fingerprintOf } from '../../../../../src/core/text/fingerprint.js'
import { cleanUp, eventually, runKeeper } from '../../../../helpers/ssh-stand-in.js'

const SSHD = '/usr/sbin/sshd'

/** sshd wants its privilege separation directory, which only root may make. */
function sshdUsable(): boolean {
  if (!existsSync(SSHD) || !existsSync('/usr/bin/ssh-keygen')) return false
  try {
    mkdirSync('/run/sshd', { recursive: true })
    return true
  } catch {
    return false
  }
}

const usable = sshdUsable()
// CI installs openssh-server (.ci/run): there, a missing sshd is a broken set-up, not a skip.
const withSshd = usable ? describe : describe.skip

if (!usable && process.env.CI === 'true') {
  it('has OpenSSH sshd to pin host keys against (.ci/run installs openssh-server)', () => {
    expect(existsSync(SSHD)).toBe(true)
  })
}

withSshd('pins against OpenSSH sshd with ed25519 and RSA host keys', () => {
  let dir: string
  let sshd: ChildProcess
  let port: number
  let output = ''
  const publicKey = (name: string) => readFileSync(join(dir, `${name}.pub`), 'utf8').trim()
  const fingerprintOfKey = (name: string) =>
    fingerprintOf(Buffer.from(publicKey(name).split(/\s+/)[1], 'base64'))

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-sshd-'))
    for (const type of ['ed25519', 'rsa']) {
      execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', type, '-N', '', '-f', join(dir, type)])
    }
    const probe = createServer()
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
    port = (probe.address() as AddressInfo).port
    await new Promise(resolve => probe.close(resolve))
    const config = [
      'ListenAddress 127.0.0.1',
      `Port ${port}`,
      `HostKey ${join(dir, 'ed25519')}`,
      `HostKey ${join(dir, 'rsa')}`,
      'PidFile none',
      'UsePAM no',
      'StrictModes no'
    ].join('\n')
    writeFileSync(join(dir, 'sshd_config'), `${config}\n`)
    sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], {
      stdio: ['ignore', 'pipe', 'pipe']
    })
    sshd.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await eventually(
      () => output,
      text => text.includes('Server listening')
    )
  })
  afterEach(cleanUp)
  afterAll(async () => {
    if (sshd.exitCode === null) {
      await new Promise(resolve => {
        sshd.once('exit', resolve)
        sshd.kill('SIGTERM')
      })
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it.each([
    ['a bare SHA256 fingerprint', () => ({ fingerprint: fingerprintOfKey('rsa') })],
    [
      'a known_hosts line',
      () => ({ fingerprint: fingerprintOfKey('rsa'), keyType: publicKey('rsa').split(' ')[0] })
    ]
  ])('gets past the host key check with %s of the RSA key', async (_name, pin) => {
    const keeper = runKeeper(port, { hostKeyPins: [pin()] })
    // Refused as a login, not as a host key: the pinned key was found and trusted.
    expect(await keeper.report).toMatchObject({
      type: 'failed',
      cause: 'auth',
      fingerprint: fingerprintOfKey('rsa')
    })
  })
})
