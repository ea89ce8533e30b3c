import type { AnswerUrlFields } from '../service/answer-url.js'
import { parseCredential, type Credential, type Overrides } from '../service/credential.js'
import type { KindName } from '../settings/types.js'
import { isCleanIdentifier } from '../text/validators.js'
import type { ObtainContext, Obtained } from './kind.js'
import { readSavedIssued, type SavedIssued } from './saved-issued.js'

/** How a token kind (cicd, free, existing) names itself in what it publishes. */
export interface TokenKindWords {
  kind: KindName
  /** The kind in the job summary, e.g. "free (5 minutes, not revocable)". */
  label: string
  /** The closing line's first word: "Provisioned" for a token this step asked for. */
  verb: 'Provisioned' | 'Using'
  /** True for a token no answer came with: its end is unknown rather than never. */
  expiryUnknown?: boolean
}

/** What a kind that issues tokens saves: the tunnel user names the credential to revoke. */
export interface SavedToken extends SavedIssued {
  kind: KindName
  tunnelUser: string
}

/**
 * What every token kind publishes: the four variables of the spec, the outputs, and the summary.
 * Host, port and user are not secret; the token is masked by the kind before it gets here.
 */
export function tokenObtained(
  credential: Credential,
  words: TokenKindWords,
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
      credential: words.kind
    },
    summary: [
      ['Project', project],
      ['Environment', context.environment ?? ''],
      ['Tunnel user', credential.tunnelUser],
      ['Tunnel host', credential.tunnelHost],
      ['Tunnel port', String(credential.tunnelPort)],
      ['Ownership', credential.ownershipType ?? ''],
      ['Expires at', credential.expiresAt ?? (words.expiryUnknown ? 'not given' : NO_EXPIRY)],
      ['Credential', words.label]
    ],
    announcement:
      `${words.verb} tunnel user ${credential.tunnelUser} for ${credential.tunnelHost}:${credential.tunnelPort}` +
      `${credential.expiresAt ? `, valid until ${credential.expiresAt}` : words.expiryUnknown ? '' : `, with ${NO_EXPIRY}`}.`,
    login: {
      kind: words.kind,
      user: credential.tunnelUser,
      host: credential.tunnelHost,
      port: credential.tunnelPort,
      secret: { type: 'password', token: credential.token },
      ...(credential.expiresAt && { expiresAt: credential.expiresAt }),
      answerUrl: answerUrlOf(credential)
    }
  }
}

/** How the summary and the closing line say that a credential never expires. */
const NO_EXPIRY = 'no expiry'

/** Only the fields the answer holds: the spec's shape gives an empty object. */
function answerUrlOf({ tunnelFqdn, appendUserToSubdomain }: Credential): AnswerUrlFields {
  return {
    ...(tunnelFqdn !== undefined && { tunnelFqdn }),
    ...(appendUserToSubdomain !== undefined && { appendUserToSubdomain })
  }
}

/**
 * A token answer the service issued, checked and accepted: a defaulted port is said, and what post
 * needs is saved before anything is published, so a publish that fails halfway still leaves post
 * the credential to revoke (and the revoke option is honoured from here on).
 */
export function acceptIssuedToken(
  raw: unknown,
  kind: SavedToken['kind'],
  settings: Overrides & { baseUrl: string },
  { log, save }: Pick<ObtainContext<SavedToken>, 'log' | 'save'>
): Credential {
  const credential = parseCredential(raw, settings)
  if (credential.portDefaulted) {
    log.notice(`The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`)
  }
  save(savedTokenOf(kind, credential, settings.baseUrl))
  return credential
}

/** What post needs of an issued token: whose it is, where it came from, and when it ends. */
export function savedTokenOf(
  kind: SavedToken['kind'],
  { tunnelUser, expiresAt }: Pick<Credential, 'tunnelUser' | 'expiresAt'>,
  baseUrl: string
): SavedToken {
  return { kind, tunnelUser, baseUrl, ...(expiresAt && { expiresAt }) }
}

/** A saved token, read back as `kind`; undefined without a clean tunnel user. */
export function readSavedToken(
  kind: SavedToken['kind'],
  saved: Record<string, unknown>
): SavedToken | undefined {
  const { tunnelUser } = saved
  if (!isCleanIdentifier(tunnelUser)) return undefined
  return { kind, tunnelUser, ...readSavedIssued(saved) }
}
