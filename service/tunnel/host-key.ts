/**
 * The tunnel stand-in's host key, made fresh at every start, and the known_hosts file that lets
 * an SSH client check it with `StrictHostKeyChecking=yes` instead of trusting on first use.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ssh2 from 'ssh2'

export interface HostKey {
  /** OpenSSH private key text, for ssh2's `hostKeys`. */
  privateKey: string
  /** `ssh-ed25519 AAAA…`, the public half as it appears in known_hosts (no comment). */
  publicKey: string
  /** `SHA256:…`, as `ssh-keygen -lf` and OpenSSH's own messages print it. */
  fingerprint: string
}

type KeyPair = { private: string; public: string }
const generateEd25519 = (): KeyPair => ssh2.utils.generateKeyPairSync('ed25519')

/**
 * ssh2 1.17.0 writes a malformed private key when the ed25519 public key starts with a zero
 * byte (it drops that byte, so 1 key in 256): its own Server then refuses the key at start.
 * Such a key is thrown away and another made; `generate` is injectable for the test.
 */
function generateParsableKeyPair(generate: () => KeyPair): KeyPair {
  for (let attempt = 1; ; attempt++) {
    const pair = generate()
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair
    if (attempt === 20) throw new Error('could not make a host key that ssh2 can read')
  }
}

export function generateHostKey(generate: () => KeyPair = generateEd25519): HostKey {
  const pair = generateParsableKeyPair(generate)
  const [type, blob] = pair.public.trim().split(/\s+/)
  const digest = createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64')
  return {
    privateKey: pair.private,
    publicKey: `${type} ${blob}`,
    fingerprint: `SHA256:${digest.replace(/=+$/, '')}`
  }
}

/** `[host]:port` as known_hosts names a server on a port other than 22. */
export const knownHostsName = (host: string, port: number): string =>
  port === 22 ? host : `[${host}]:${port}`

export interface KnownHostsFile {
  path: string
  /** Removes the file and its temporary directory. */
  remove(): void
}

/** Writes one line per host name (deduplicated) into a fresh temporary directory. */
export function writeKnownHosts(hosts: string[], port: number, publicKey: string): KnownHostsFile {
  const dir = mkdtempSync(join(tmpdir(), 'credential-service-tunnel-'))
  const path = join(dir, 'known_hosts')
  const lines = [...new Set(hosts)].map(host => `${knownHostsName(host, port)} ${publicKey}\n`)
  writeFileSync(path, lines.join(''), { mode: 0o644 })
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
