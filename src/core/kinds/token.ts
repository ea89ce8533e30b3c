import { parseCredential, type Credential, type Overrides } from '../service/credential.js'
import type { ObtainContext, Obtained, SavedToken } from './kind.js'

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

/**
 * A token answer the service issued, checked and accepted: a defaulted port is said, and what post
 * needs is saved before anything is published, so a publish that fails halfway still leaves post
 * the credential to give back (and the revoke input is honoured from here on).
 */
export function acceptIssuedToken(
  raw: unknown,
  kind: SavedToken['kind'],
  settings: Overrides & { baseUrl: string },
  { log, save }: Pick<ObtainContext, 'log' | 'save'>
): Credential {
  const credential = parseCredential(raw, kind, settings)
  if (credential.portDefaulted) {
    log.notice(`The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`)
  }
  save({
    kind,
    tunnelUser: credential.tunnelUser,
    baseUrl: settings.baseUrl,
    ...(credential.expiresAt && { expiresAt: credential.expiresAt })
  })
  return credential
}
