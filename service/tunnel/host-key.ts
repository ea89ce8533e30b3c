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

export function generateHostKey(): HostKey {
  const pair = ssh2.utils.generateKeyPairSync('ed25519')
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
