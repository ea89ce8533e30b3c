/**
 * A credential sealed for the other jobs of one run: AES-256-GCM under a key derived with
 * HKDF-SHA256 from the API key, so that only a holder of the API key can open it, and bound to
 * the run and the project as associated data, so that a blob copied to another run, repository
 * or project does not open there. The binding also travels in clear at the front, so that a
 * refusal can say which of them differs; the cipher authenticates those exact bytes, so a
 * changed binding fails as tampering would.
 *
 * Shape: `ptc1.<binding>.<salt>.<iv>.<ciphertext and tag>`, each part base64url. Nothing in it
 * is secret without the API key, so it passes between jobs as an ordinary output.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { printable } from '../text/printable.js'

/** Who may open the blob: every job of one run sees the same values. */
export interface ShareBinding {
  /** The CI system, `github` or `gitlab`: a run id means nothing across systems. */
  system: string
  /** GITHUB_REPOSITORY, or GitLab's CI_PROJECT_PATH. */
  repository: string
  /** GITHUB_RUN_ID, or GitLab's CI_PIPELINE_ID. The attempt is left out: re-runs share it. */
  runId: string
  /** The project slug the credential was provisioned for. */
  project: string
}

/** Why a blob does not open; `message` names the cause and what to do, and quotes no secret. */
export class ShareRefusal extends Error {
  constructor(
    readonly reason: 'malformed' | 'other-run' | 'tampered',
    message: string
  ) {
    super(message)
    this.name = 'ShareRefusal'
  }
}

const PREFIX = 'ptc1'
const INFO = 'provision-tunnel-credentials shared-credential v1'
const SALT_BYTES = 16
const IV_BYTES = 12
const TAG_BYTES = 16
/** Far above any real credential: a longer value is not ours, and is not decoded. */
const MAX_BLOB_LENGTH = 16_384

/** Seals `payload` (a JSON-able credential) for the run and project in `binding`. */
export function sealCredential(payload: unknown, apiKey: string, binding: ShareBinding): string {
  const header = Buffer.from(JSON.stringify(bindingRecord(binding)), 'utf8')
  const salt = randomBytes(SALT_BYTES)
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', keyFor(apiKey, salt), iv)
  cipher.setAAD(header)
  const body = Buffer.concat([
    cipher.update(JSON.stringify(payload), 'utf8'),
    cipher.final(),
    cipher.getAuthTag()
  ])
  return [PREFIX, ...[header, salt, iv, body].map(part => part.toString('base64url'))].join('.')
}

/**
 * Opens a blob sealed for `binding`, returning the payload as parsed JSON (the caller checks its
 * fields as it would a service answer). Throws a ShareRefusal otherwise.
 */
export function openSealedCredential(blob: string, apiKey: string, binding: ShareBinding): unknown {
  const parts = splitBlob(blob.trim())
  const sealedFor = readBindingRecord(parts.header)
  const differs = bindingDifference(sealedFor, bindingRecord(binding))
  if (differs !== undefined) throw new ShareRefusal('other-run', differs)
  let plain: Buffer
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(apiKey, parts.salt), parts.iv)
    decipher.setAAD(parts.header)
    decipher.setAuthTag(parts.body.subarray(parts.body.length - TAG_BYTES))
    plain = Buffer.concat([
      decipher.update(parts.body.subarray(0, parts.body.length - TAG_BYTES)),
      decipher.final()
    ])
  } catch {
    throw new ShareRefusal(
      'tampered',
      "The shared credential does not open with this API key: it was changed after it was sealed, or sealed with another API key. Pass the setup job's shared-credential output unchanged, with the same API key."
    )
  }
  try {
    return JSON.parse(plain.toString('utf8')) as unknown
  } catch {
    throw malformed()
  }
}

function keyFor(apiKey: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(apiKey, 'utf8'), salt, INFO, 32))
}

type BindingRecord = { v: 1; system: string; repository: string; run: string; project: string }

function bindingRecord(binding: ShareBinding): BindingRecord {
  return {
    v: 1,
    system: binding.system,
    repository: binding.repository,
    run: binding.runId,
    project: binding.project
  }
}

interface BlobParts {
  header: Buffer
  salt: Buffer
  iv: Buffer
  body: Buffer
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

function splitBlob(blob: string): BlobParts {
  if (blob.length > MAX_BLOB_LENGTH) throw malformed()
  const parts = blob.split('.')
  if (parts.length !== 5 || parts[0] !== PREFIX) throw malformed()
  if (!parts.slice(1).every(part => BASE64URL.test(part))) throw malformed()
  const [header, salt, iv, body] = parts.slice(1).map(part => Buffer.from(part, 'base64url'))
  if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES || body.length <= TAG_BYTES) {
    throw malformed()
  }
  return { header, salt, iv, body }
}

function readBindingRecord(header: Buffer): BindingRecord {
  let value: unknown
  try {
    value = JSON.parse(header.toString('utf8'))
  } catch {
    throw malformed()
  }
  if (typeof value !== 'object' || value === null) throw malformed()
  const record = value as Record<string, unknown>
  const fields = ['system', 'repository', 'run', 'project'] as const
  if (record.v !== 1 || !fields.every(field => typeof record[field] === 'string')) throw malformed()
  return record as unknown as BindingRecord
}

/**
 * Which part of the binding differs, said without quoting what the blob holds (it is outside
 * text): only the current run's own values, which the runner set, are named.
 */
function bindingDifference(sealed: BindingRecord, current: BindingRecord): string | undefined {
  const rerun =
    " Each run shares its own credential: use the shared-credential output of this run's setup job."
  if (sealed.system !== current.system) {
    return `The shared credential was sealed on another CI system, not for this run.${rerun}`
  }
  if (sealed.repository !== current.repository) {
    return `The shared credential was sealed for another repository, not ${printable(current.repository)}.${rerun}`
  }
  if (sealed.run !== current.run) {
    return `The shared credential was sealed for another run, not run ${printable(current.run)} of ${printable(current.repository)}.${rerun}`
  }
  if (sealed.project !== current.project) {
    return `The shared credential was sealed for another project, not "${printable(current.project)}": set the same project in every job of the run.`
  }
  return undefined
}

function malformed(): ShareRefusal {
  return new ShareRefusal(
    'malformed',
    "The shared credential is not one this tool sealed: pass the setup job's shared-credential output unchanged."
  )
}
