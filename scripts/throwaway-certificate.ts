/**
 * A self-signed certificate for serving the local credential service over https, made with
 * `openssl` on the spot and valid for one day. Clients trust it by pointing NODE_EXTRA_CA_CERTS
 * at `certFile` (Node reads that variable only at start-up, so it is for child processes) or by
 * passing `cert` as `ca`. The key is throw-away: it protects nothing but a local test service.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ThrowawayCertificate {
  /** PEM private key, for the server. */
  key: string
  /** PEM certificate, for the server and as the clients' trusted CA. */
  cert: string
  /** Where `cert` is on disk, for NODE_EXTRA_CA_CERTS. */
  certFile: string
  /** Deletes the files. */
  remove(): void
}

/** Names the certificate covers: base-url may say https://127.0.0.1, https://[::1] or https://localhost. */
const SUBJECT_ALT_NAMES = 'DNS:localhost,IP:127.0.0.1,IP:::1'

export function makeThrowawayCertificate(): ThrowawayCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'throwaway-cert-'))
  const keyFile = join(dir, 'key.pem')
  const certFile = join(dir, 'cert.pem')
  try {
    // P-256 rather than RSA: generated in milliseconds, and what many public https services use.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        `subjectAltName=${SUBJECT_ALT_NAMES}`,
        '-keyout',
        keyFile,
        '-out',
        certFile
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] }
    )
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    const reason = (error as { code?: string }).code === 'ENOENT' ? 'openssl is not on PATH' : error
    throw new Error(`Could not make a self-signed certificate with openssl: ${String(reason)}`, {
      cause: error
    })
  }
  return {
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    certFile,
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}
