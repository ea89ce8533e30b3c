import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { explainFailure } from '../service/failures.js'
import { describeUnexpected } from '../text/describe-error.js'
import type { CredentialService } from '../service/client.js'
import { printable } from '../text/printable.js'
import { readBaseUrl } from '../settings/common.js'
import { readApiKey, readSelfNamedLogin, type SelfNamedLogin } from '../settings/login-options.js'
import { capitalised, optionNamed } from '../settings/option-values.js'
import { quote } from '../text/quote.js'
import { keyNameFor } from './key-name.js'
import {
  createKeyFolder,
  isKeyFolder,
  removeKeyFolder,
  writeKeyFile,
  type KeyFolder,
  type SavedKeyFolder
} from './key-file.js'
import { expiryNote } from '../expiry.js'
import { requireRevokeApiKey, shouldRevoke } from './revoke-guard.js'
import { revokeUnused } from './revoke-unused.js'
import type { CredentialKind, RevokeContext, StepLog } from './kind.js'
import type { SshKeySettings } from './ssh-key-settings.js'

export type { SshKeySettings }
import { sshKeyObtained } from './ssh-key-obtained.js'
import { readSavedSshKey, type SavedSshKey } from './ssh-key-saved.js'
import { generateSshKeyPair } from './ssh-key-pair.js'
import { parseUploadedKey, sameFingerprint } from './uploaded-key.js'
import { KEY_LIFETIME_DAYS, uploadKeySettled } from './upload-key.js'
import { revokeByHand, revokeKeyRecords } from './key-records.js'

/**
 * An SSH key per run: made on the runner, its public half uploaded, its private half kept in a
 * mode-0600 file. The tunnel server never sees a secret it could replay, and post revokes the key.
 */
const SSH_KEY_LOGIN: SelfNamedLogin = {
  kind: 'ssh-key',
  userOption: 'client-id',
  whatTheUserIs: 'the tunnel user (client id) the uploaded key logs in as',
  userChangeable: true,
  whyTheHost:
    "the key upload answer names no tunnel server, so set it to the tunnel server's hostname."
}

/**
 * keys-upload counts a key's life in whole days (expires_in_days), so no minute bound can reach
 * the service: refused rather than ignored, since a key that lives a day when five minutes were
 * asked for is a surprise. A days option would only lengthen it; revoking at the end is the bound.
 */
function refuseTtlMinutes(options: OptionSource): void {
  const raw = options.read('ttl-minutes')
  if (!raw.trim()) return
  throw new ExplainedError(
    `${optionNamed(options, 'ttl-minutes')} is ${quote(raw)}, but credential "ssh-key" cannot use it: the service sets an uploaded key's lifetime in whole days, so the key is uploaded for ${KEY_LIFETIME_DAYS} day and revoked when the job ends. Remove ${options.label('ttl-minutes')}, or use credential "cicd" for a lifetime in minutes.`
  )
}

export const sshKeyKind: CredentialKind<SshKeySettings, SavedSshKey> = {
  readSettings(options, common) {
    refuseTtlMinutes(options)
    const apiKey = readApiKey(options, 'ssh-key')
    const login = readSelfNamedLogin(options, SSH_KEY_LOGIN)
    const baseUrl = readBaseUrl(options)
    return { ...common, kind: 'ssh-key', apiKey, clientId: login.knownUser.name, baseUrl, ...login }
  },

  sendsRequests: true,
  revocation: 'revoke',

  async obtain(settings, context) {
    const { service, log, save, publish, tempRoot, run } = context
    const name = keyNameFor(run)
    const pair = generateSshKeyPair(name)
    log.info(
      `Uploading a new ed25519 SSH key "${name}" (${pair.fingerprint}) for tunnel user ` +
        `${settings.clientId} to ${settings.baseUrl}`
    )
    const client = service()
    // Saved before the upload: an attempt whose answer is lost (a timeout, a cancelled job) may
    // still have stored the key, and post then finds it by its fingerprint.
    const pending: SavedSshKey = {
      kind: 'ssh-key',
      fingerprint: pair.fingerprint,
      keyName: name,
      baseUrl: settings.baseUrl,
      rejected: true
    }
    save(pending)
    const { raw, keyId, mayHaveCopies } = await uploadKeySettled(
      client,
      settings,
      pair,
      name,
      context
    )

    // From here the service holds a key: any failure revokes it at once, and state names it
    // first, so that post revokes it if that revoke fails too.
    const { rejected: _pending, ...uploaded } = pending
    const issued: SavedSshKey = { ...uploaded, keyId, ...(mayHaveCopies && { mayHaveCopies }) }
    let keyFolder: KeyFolder | undefined
    try {
      save({ ...issued, rejected: true })
      const uploaded = parseUploadedKey(raw)
      if (!sameFingerprint(uploaded.fingerprint, pair.fingerprint)) {
        throw new ExplainedError(
          `The credential service answered keys-upload with the fingerprint ${uploaded.fingerprint}, ` +
            `but the key this step made and sent has ${pair.fingerprint}: the service did not store ` +
            'the key that was sent. Nothing was exported. Check that base-url points at the ' +
            'credential service; if it does, report this to the service operator.'
        )
      }
      // Accepted: post now honours the revoke input. Saved before the file exists, so that post
      // revokes the key even if writing it fails.
      const accepted: SavedSshKey = {
        ...issued,
        ...(uploaded.expiresAt && { expiresAt: uploaded.expiresAt })
      }
      save(accepted)
      keyFolder = createKeyFolder(tempRoot)
      save({ ...accepted, keyFolder: keyFolder.path, keyFolderId: keyFolder.id })
      const keyFile = writeKeyFile(keyFolder.path, pair.privateKeyFile)
      const obtained = sshKeyObtained(settings, name, keyId, pair.fingerprint, keyFile, uploaded)
      await publish(obtained)
      return obtained
    } catch (error) {
      // The private half goes first: a key that will be revoked needs no file.
      if (keyFolder) deleteKeyFolder(keyFolder, context, log)
      await revokeUnused(
        `the uploaded SSH key ${pair.fingerprint} (id ${keyId})`,
        async () => {
          await client.revokeKey(settings.apiKey, keyId)
          if (mayHaveCopies) await revokeKeyRecords(client, settings.apiKey, pair.fingerprint)
        },
        context
      )
      throw error
    }
  },

  readSaved: readSavedSshKey,

  async revoke(saved, context) {
    const { settings, service, log } = context
    try {
      if (!shouldRevoke(settings, saved)) {
        // The key stays, but not the copies a retried upload left: nobody would know to revoke them.
        if (saved.mayHaveCopies && settings.apiKey) {
          await revokeOtherRecords(service(), saved, { settings, log }, saved.keyId)
        }
        log.info(
          `Not revoking ${describeKey(saved)}: ${settings.optionLabel('revoke')} is false.${expiryNote(saved)}`
        )
        return 'kept'
      }
      requireRevokeApiKey(settings)
      const client = service()
      const outcome = saved.keyId ? await client.revokeKey(settings.apiKey, saved.keyId) : undefined
      // Without an id (the upload's answer was lost), or after a retried upload, only the
      // fingerprint finds every record of the key.
      if (saved.keyId === undefined || saved.mayHaveCopies) {
        await revokeOtherRecords(client, saved, { settings, log })
      }
      if (outcome !== undefined) {
        log.info(
          outcome === 'revoked'
            ? `Revoked ${describeKey(saved)}.`
            : `${capitalised(describeKey(saved))} was already revoked or deleted (404); nothing left to do.`
        )
      } else {
        log.info(`No record of ${describeKey(saved)} is left active.`)
      }
      return 'revoked'
    } finally {
      // Whatever became of the key, its private half leaves the runner (self-hosted ones keep files).
      if (saved.keyFolder) {
        deleteKeyFolder({ path: saved.keyFolder, id: saved.keyFolderId }, context, log)
      }
    }
  },

  describe: describeKey
}

function describeKey(saved: Pick<SavedSshKey, 'keyId' | 'fingerprint'>): string {
  // Both come from saved state, which is text anyone before this step could write.
  const id = saved.keyId === undefined ? '' : ` (id ${printable(saved.keyId)})`
  return `the SSH key ${printable(saved.fingerprint)}${id}`
}

/** Revokes every live record of the saved key's fingerprint; says how to finish by hand if it cannot. */
async function revokeOtherRecords(
  client: CredentialService,
  saved: SavedSshKey,
  { settings, log }: Pick<RevokeContext, 'settings' | 'log'>,
  keep?: string
): Promise<void> {
  try {
    const revoked = await revokeKeyRecords(client, settings.apiKey, saved.fingerprint, keep)
    if (revoked.length > 0) {
      log.info(
        `Revoked ${revoked.length} record${revoked.length === 1 ? '' : 's'} of ${describeKey(saved)} ` +
          `found by its fingerprint (${revoked.join(', ')}).`
      )
    }
  } catch (error) {
    const why =
      error instanceof ExplainedError
        ? error.message
        : explainFailure(error, { baseUrl: settings.baseUrl ?? '', nowMs: Date.now() })
    const hint = revokeByHand(
      printable(saved.fingerprint),
      saved.keyName && printable(saved.keyName)
    )
    throw new ExplainedError(`${why} So ${hint}.`)
  }
}

function deleteKeyFolder(
  folder: SavedKeyFolder,
  { tempRoot, tempRootName }: { tempRoot: string; tempRootName: string },
  log: StepLog
): void {
  const path = printable(folder.path, 200)
  if (!isKeyFolder(folder.path, tempRoot)) {
    log.warning(
      `Not deleting ${path}: saved state names it as the key folder, but it is not a folder this tool makes under ${tempRootName}.`
    )
    return
  }
  try {
    const refused = removeKeyFolder(folder)
    if (refused !== undefined) {
      log.warning(
        `Not deleting anything in the key folder ${path}: ${refused}. Something other than this tool changed it; check what it points to.`
      )
      return
    }
    log.info(`Deleted the private key file and its folder ${path}.`)
  } catch (error) {
    log.warning(
      `Could not delete the private key folder ${path}: ${describeUnexpected(error)}. ` +
        'On a self-hosted runner, delete it by hand.'
    )
  }
}
