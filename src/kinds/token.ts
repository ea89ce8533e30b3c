import type { Credential } from '../credential.js'
import type { Obtained } from './kind.js'

/** What a token credential (cicd, free, existing) shows the step's summary as its kind. */
const KIND_LABELS: Record<Credential['flavour'], string> = {
  cicd: 'cicd',
  free: 'free (5 minutes, not revocable)',
  existing: 'existing (a token you hold; not created or revoked by this step)'
}

/**
 * What every token kind publishes: the four variables of the spec, the outputs, and the summary.
 * Host, port and user are not secret; the token is masked by the kind before it gets here.
 */
export function tokenObtained(
  credential: Credential,
  context: { project?: string; environment?: string } = {}
): Obtained {
  const project = credential.projectSlug ?? context.project ?? ''
  return {
    env: {
      TUNNEL_TOKEN: credential.token,
      TUNNEL_USER: credential.tunnelUser,
      TUNNEL_HOST: credential.tunnelHost,
      TUNNEL_PORT: String(credential.tunnelPort)
    },
    outputs: {
      token: credential.token,
      'tunnel-user': credential.tunnelUser,
      'client-id': credential.clientId,
      'tunnel-host': credential.tunnelHost,
      'tunnel-port': String(credential.tunnelPort),
      'expires-at': credential.expiresAt ?? '',
      'ttl-minutes': credential.ttlMinutes === undefined ? '' : String(credential.ttlMinutes),
      'project-slug': project,
      credential: credential.flavour
    },
    summary: [
      ['Project', project],
      ['Environment', context.environment ?? ''],
      ['Tunnel user', credential.tunnelUser],
      ['Tunnel host', credential.tunnelHost],
      ['Tunnel port', String(credential.tunnelPort)],
      ['Expires at', credential.expiresAt ?? 'not given'],
      ['Credential', KIND_LABELS[credential.flavour]]
    ],
    announcement:
      `${credential.flavour === 'existing' ? 'Using' : 'Provisioned'} tunnel user ${credential.tunnelUser} for ${credential.tunnelHost}:${credential.tunnelPort}` +
      `${credential.expiresAt ? `, valid until ${credential.expiresAt}` : ''}.`,
    login: {
      kind: credential.flavour,
      user: credential.tunnelUser,
      host: credential.tunnelHost,
      port: credential.tunnelPort,
      secret: { type: 'password', token: credential.token },
      ...(credential.expiresAt && { expiresAt: credential.expiresAt })
    }
  }
}
