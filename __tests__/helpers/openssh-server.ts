/**
 * OpenSSH's own server (sshd) on a free loopback port, with a fresh folder for its keys and
 * whatever a test writes there: the keeper's tests run against it where it is installed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fingerprintOf } from '../../src/core/text/fingerprint.js'
import { eventually } from './ssh-stand-in.js'

const SSHD = '/usr/sbin/sshd'
const SSH_KEYGEN = '/usr/bin/ssh-keygen'

/** sshd wants its privilege separation directory, which only root may make. */
export function sshdUsable(): boolean {
  if (!existsSync(SSHD) || !existsSync(SSH_KEYGEN)) return false
  try {
    mkdirSync('/run/sshd', { recursive: true })
    return true
  } catch {
    return false
  }
}

export interface OpenSshServer {
  port: number
  /** The folder holding its keys and config, removed by stop(). */
  dir: string
  /** Makes a key pair `dir/<name>` (and `.pub`) of this type. */
  makeKey(name: string, type: 'ed25519' | 'rsa'): void
  publicKey(name: string): string
  fingerprintOfKey(name: string): string
  /** Starts sshd with these host keys (names made by makeKey) and these config lines. */
  start(hostKeys: string[], config: string[]): Promise<void>
  stop(): Promise<void>
  /** What sshd wrote to stderr so far (`-e`): its log, for a failing test to show. */
  log(): string
}

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as AddressInfo).port
  await new Promise(resolve => probe.close(resolve))
  return port
}

export async function openSshServer(): Promise<OpenSshServer> {
  const dir = mkdtempSync(join(tmpdir(), 'keeper-sshd-'))
  const port = await freePort()
  let sshd: ChildProcess | undefined
  let output = ''
  const publicKey = (name: string) => readFileSync(join(dir, `${name}.pub`), 'utf8').trim()
  return {
    port,
    dir,
    makeKey: (name, type) =>
      execFileSync(SSH_KEYGEN, ['-q', '-t', type, '-N', '', '-f', join(dir, name)]),
    publicKey,
    fingerprintOfKey: name => fingerprintOf(Buffer.from(publicKey(name).split(/\s+/)[1], 'base64')),
    async start(hostKeys, config) {
      const lines = [
        'ListenAddress 127.0.0.1',
        `Port ${port}`,
        ...hostKeys.map(name => `HostKey ${join(dir, name)}`),
        'PidFile none',
        'UsePAM no',
        'StrictModes no',
        ...config
      ]
      writeFileSync(join(dir, 'sshd_config'), `${lines.join('\n')}\n`)
      sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
      sshd.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      await eventually(
        () => output,
        text => text.includes('Server listening')
      )
    },
    log: () => output,
    async stop() {
      if (sshd !== undefined && sshd.exitCode === null) {
        await new Promise(resolve => {
          sshd!.once('exit', resolve)
          sshd!.kill('SIGTERM')
        })
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
