import type { Obtained } from './kind.js'
import type { SshKeySettings } from './ssh-key-settings.js'
import type { UploadedKey } from './uploaded-key.js'

/** What an uploaded key publishes: the key file's path, never a token, and where it logs in. */
export function sshKeyObtained(
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
      userFrom: settings.knownUser.from,
      ...(expiresAt && { expiresAt })
    }
  }
}
