import { ActionError } from '../errors.js'
import { describeUnexpected } from '../failures.js'
import { printable } from '../printable.js'
import type { SshKeySettings } from '../inputs.js'
import { keyNameFor, runIdentityFrom } from './key-name.js'
import { createKeyFolder, isKeyFolder, removeKeyFolder, writeKeyFile } from './key-file.js'
import { until } from './expiry-note.js'
import { giveBackUnused } from './give-back-unused.js'
import type { CredentialKind, Obtained, SavedSshKey, StepLog } from './kind.js'
import { generateSshKeyPair } from './ssh-key-pair.js'
import {
  invalidUpload,
  parseUploadedKey,
  readKeyId,
  sameFingerprint,
  type UploadedKey
} from './uploaded-key.js'

/** The shortest life keys-upload offers in whole days; post revokes the key long before. */
const KEY_LIFETIME_DAYS = 1

/**
 * An SSH key per run: made on the runner, its public half uploaded, its private half kept in a
 * mode-0600 file. The tunnel server never sees a secret it could replay, and post revokes the key.
 */
export const sshKeyKind: CredentialKind<SshKeySettings, SavedSshKey> = {
  async obtain(settings, context) {
    const { service, log, save, publish, env } = context
    const name = keyNameFor(runIdentityFrom(env))
    const pair = generateSshKeyPair(name)
    log.info(
      `Uploading a new ed25519 SSH key "${name}" (${pair.fingerprint}) for tunnel user ` +
        `${settings.clientId} to ${settings.baseUrl}`
    )
    const client = service()
    const raw = await client.uploadKey({
      apiKey: settings.apiKey,
      publicKeyLine: pair.publicKeyLine,
      name,
      expiresInDays: KEY_LIFETIME_DAYS,
      clientId: settings.clientId
    })
    const keyId = readKeyId(raw)
    if (keyId === undefined) {
      throw invalidUpload(
        `key_id is missing or not a plain identifier, so the key cannot be revoked by this step; ` +
          `find the key named "${name}" in user-keys-list and revoke it`
      )
    }

    // From here the service holds a key: any failure revokes it at once, and state names it
    // first, so that post revokes it if that revoke fails too.
    const issued: SavedSshKey = {
      kind: 'ssh-key',
      keyId,
      fingerprint: pair.fingerprint,
      baseUrl: settings.baseUrl
    }
    let keyFolder: string | undefined
    try {
      save({ ...issued, rejected: true })
      const uploaded = parseUploadedKey(raw)
      if (!sameFingerprint(uploaded.fingerprint, pair.fingerprint)) {
        throw new ActionError(
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
      keyFolder = createKeyFolder(env)
      save({ ...accepted, keyFolder })
      const keyFile = writeKeyFile(keyFolder, pair.privateKeyFile)
      const obtained = sshKeyObtained(settings, name, keyId, pair.fingerprint, keyFile, uploaded)
      await publish(obtained)
      return obtained
    } catch (error) {
      // The private half goes first: a key that will be revoked needs no file.
      if (keyFolder) deleteKeyFolder(keyFolder, env, log)
      await giveBackUnused(
        `the uploaded SSH key ${pair.fingerprint} (id ${keyId})`,
        () => client.revokeKey(settings.apiKey, keyId),
        context
      )
      throw error
    }
  },

  async giveBack(saved, { settings, service, log, env }) {
    try {
      // A key main refused was never handed out: it goes, whatever the revoke input says.
      if (!settings.revoke && !saved.rejected) {
        log.info(`Not revoking ${describeKey(saved)}: input revoke is false.${until(saved)}`)
        return
      }
      if (!settings.apiKey) {
        throw new ActionError(
          'input api-key is empty in the post step, so the revoke request cannot be authenticated.'
        )
      }
      const outcome = await service().revokeKey(settings.apiKey, saved.keyId)
      log.info(
        outcome === 'revoked'
          ? `Revoked ${describeKey(saved)}.`
          : `${capitalise(describeKey(saved))} was already revoked or deleted (404); nothing left to do.`
      )
    } finally {
      // Whatever became of the key, its private half leaves the runner (self-hosted ones keep files).
      if (saved.keyFolder) deleteKeyFolder(saved.keyFolder, env, log)
    }
  },

  describe: describeKey
}

function describeKey(saved: Pick<SavedSshKey, 'keyId' | 'fingerprint'>): string {
  // Both come from saved state, which is text anyone before this step could write.
  return `the SSH key ${printable(saved.fingerprint)} (id ${printable(saved.keyId)})`
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function deleteKeyFolder(folder: string, env: NodeJS.ProcessEnv, log: StepLog): void {
  if (!isKeyFolder(folder, env)) {
    log.warning(
      `Not deleting ${printable(folder, 200)}: saved state names it as the key folder, but it is not a folder this action makes under RUNNER_TEMP.`
    )
    return
  }
  try {
    removeKeyFolder(folder)
    log.info(`Deleted the private key file and its folder ${folder}.`)
  } catch (error) {
    log.warning(
      `Could not delete the private key folder ${folder}: ${describeUnexpected(error)}. ` +
        'On a self-hosted runner, delete it by hand.'
    )
  }
}

function sshKeyObtained(
  settings: SshKeySettings,
  name: string,
  keyId: string,
  fingerprint: string,
  keyFile: string,
  uploaded: UploadedKey
): Obtained {
  const { expiresAt } = uploaded
  return {
    env: {
      TUNNEL_KEY_FILE: keyFile,
      TUNNEL_USER: settings.clientId,
      TUNNEL_HOST: settings.tunnelHost,
      TUNNEL_PORT: String(settings.tunnelPort)
    },
    outputs: {
      'key-id': keyId,
      'key-fingerprint': fingerprint,
      'key-file': keyFile,
      'expires-at': expiresAt ?? '',
      'tunnel-user': settings.clientId,
      'tunnel-host': settings.tunnelHost,
      'tunnel-port': String(settings.tunnelPort),
      credential: 'ssh-key'
    },
    summary: [
      ['Key name', name],
      ['Key fingerprint', fingerprint],
      ['Tunnel user', settings.clientId],
      ['Tunnel host', settings.tunnelHost],
      ['Tunnel port', String(settings.tunnelPort)],
      ['Expires at', expiresAt ?? 'not given'],
      ['Credential', 'ssh-key (revoked when the job ends)']
    ],
    announcement:
      `Uploaded SSH key ${fingerprint} (id ${keyId}) for tunnel user ${settings.clientId} ` +
      `at ${settings.tunnelHost}:${settings.tunnelPort}${expiresAt ? `, valid until ${expiresAt}` : ''}. ` +
      `Its private key is in ${keyFile}, readable by this user only.`,
    login: {
      kind: 'ssh-key',
      user: settings.clientId,
      host: settings.tunnelHost,
      port: settings.tunnelPort,
      secret: { type: 'key-file', path: keyFile },
      ...(expiresAt && { expiresAt })
    }
  }
}
