import { ActionError } from '../errors.js'
import { cleanText as printable } from '../service.js'
import type { SshKeySettings } from '../inputs.js'
import type { CredentialService } from '../service.js'
import { keyNameFor, runIdentityFrom } from './key-name.js'
import { createKeyFolder, isKeyFolder, removeKeyFolder, writeKeyFile } from './key-file.js'
import type { CredentialKind, SavedSshKey, StepLog } from './kind.js'
import { generateSshKeyPair } from './ssh-key-pair.js'
import { invalidUpload, parseUploadedKey, readKeyId, sameFingerprint } from './uploaded-key.js'

/** The shortest life keys-upload offers in whole days; post revokes the key long before. */
const KEY_LIFETIME_DAYS = 1

/**
 * An SSH key per run: made on the runner, its public half uploaded, its private half kept in a
 * mode-0600 file. The tunnel server never sees a secret it could replay, and post revokes the key.
 */
export const sshKeyKind: CredentialKind<SshKeySettings, SavedSshKey> = {
  async obtain(settings, { service, log, save, env }) {
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

    let expiresAt: string | undefined
    try {
      const uploaded = parseUploadedKey(raw)
      if (!sameFingerprint(uploaded.fingerprint, pair.fingerprint)) {
        throw new ActionError(
          `The credential service answered keys-upload with the fingerprint ${uploaded.fingerprint}, ` +
            `but the key this step made and sent has ${pair.fingerprint}: the service did not store ` +
            'the key that was sent. Nothing was exported. Check that base-url points at the ' +
            'credential service; if it does, report this to the service operator.'
        )
      }
      expiresAt = uploaded.expiresAt
    } catch (error) {
      // A key the step will not use must not stay alive: revoke it now, not in post.
      await revokeAtOnce(client, settings.apiKey, keyId, pair.fingerprint, log, save)
      throw error
    }

    // Saved before the file exists, so that post revokes the key even if writing it fails.
    const saved: SavedSshKey = {
      kind: 'ssh-key',
      keyId,
      fingerprint: pair.fingerprint,
      ...(expiresAt && { expiresAt })
    }
    save(saved)
    const keyFolder = createKeyFolder(env)
    save({ ...saved, keyFolder })
    const keyFile = writeKeyFile(keyFolder, pair.privateKeyFile)

    return {
      env: {
        TUNNEL_KEY_FILE: keyFile,
        TUNNEL_USER: settings.clientId,
        TUNNEL_HOST: settings.tunnelHost,
        TUNNEL_PORT: String(settings.tunnelPort)
      },
      outputs: {
        'key-id': keyId,
        'key-fingerprint': pair.fingerprint,
        'key-file': keyFile,
        'expires-at': expiresAt ?? '',
        'tunnel-user': settings.clientId,
        'tunnel-host': settings.tunnelHost,
        'tunnel-port': String(settings.tunnelPort),
        credential: 'ssh-key'
      },
      summary: [
        ['Key name', name],
        ['Key fingerprint', pair.fingerprint],
        ['Tunnel user', settings.clientId],
        ['Tunnel host', settings.tunnelHost],
        ['Tunnel port', String(settings.tunnelPort)],
        ['Expires at', expiresAt ?? 'not given'],
        ['Credential', 'ssh-key (revoked when the job ends)']
      ],
      announcement:
        `Uploaded SSH key ${pair.fingerprint} (id ${keyId}) for tunnel user ${settings.clientId} ` +
        `at ${settings.tunnelHost}:${settings.tunnelPort}${expiresAt ? `, valid until ${expiresAt}` : ''}. ` +
        `Its private key is in ${keyFile}, readable by this user only.`,
      login: {
        user: settings.clientId,
        host: settings.tunnelHost,
        port: settings.tunnelPort,
        secret: { type: 'key-file', path: keyFile }
      }
    }
  },

  async giveBack(saved, { settings, service, log, env }) {
    const until = saved.expiresAt ? ` It expires by itself at ${saved.expiresAt}.` : ''
    try {
      if (!settings.revoke) {
        log.info(`Not revoking ${describeKey(saved)}: input revoke is false.${until}`)
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
  return `the SSH key ${saved.fingerprint} (id ${saved.keyId})`
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/**
 * Revokes a key main will not use. If that fails too, the key is saved for post, which tries
 * again; the step fails either way with the first error.
 */
async function revokeAtOnce(
  client: CredentialService,
  apiKey: string,
  keyId: string,
  fingerprint: string,
  log: StepLog,
  save: (saved: SavedSshKey) => void
): Promise<void> {
  try {
    const outcome = await client.revokeKey(apiKey, keyId)
    log.info(
      outcome === 'revoked'
        ? `Revoked the uploaded key (id ${keyId}) at once.`
        : `The uploaded key (id ${keyId}) is already gone (404).`
    )
  } catch (error) {
    save({ kind: 'ssh-key', keyId, fingerprint })
    log.warning(
      `Could not revoke the uploaded key (id ${keyId}) at once (${error instanceof Error ? error.message : String(error)}); ` +
        'the post step will try again.'
    )
  }
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
      `Could not delete the private key folder ${folder}: ${error instanceof Error ? error.message : String(error)}. ` +
        'On a self-hosted runner, delete it by hand.'
    )
  }
}
