/**
 * How the tunnel server names its public hosts, as the real server does: on a shared server
 * `{name}-{client id}.{tunnel_fqdn}`, on a dedicated or self-hosted one `{name}.{tunnel_fqdn}`.
 * The credential-provision answer of the product's shape says which (`ownership_type`,
 * `append_user_to_subdomain`, `tunnel_fqdn`); the forward table and the front follow the same rule.
 */

export const OWNERSHIP_TYPES = ['shared', 'dedicated', 'self-hosted'] as const
export type OwnershipType = (typeof OWNERSHIP_TYPES)[number]

export interface PublicNaming {
  /** The domain of every public host, `tunnel_fqdn`; not the SSH host. */
  fqdn: string
  ownership: OwnershipType
  /** `append_user_to_subdomain`: true gives `{name}-{user}`, false gives `{name}`. */
  appendUser: boolean
}

/** `localhost`, so `<label>.localhost` reaches the loopback in curl and browsers without DNS. */
export const DEFAULT_TUNNEL_FQDN = 'localhost'

/** The product's rule: only a shared server puts the client id in the name. */
export const appendsUserByDefault = (ownership: OwnershipType): boolean => ownership === 'shared'

export const DEFAULT_NAMING: PublicNaming = {
  fqdn: DEFAULT_TUNNEL_FQDN,
  ownership: 'shared',
  appendUser: true
}

/** Builds the naming from what a person chose; the user part follows ownership unless given. */
export function namingFrom(choice: {
  fqdn?: string
  ownership?: OwnershipType
  appendUser?: boolean
}): PublicNaming {
  const ownership = choice.ownership ?? DEFAULT_NAMING.ownership
  return {
    fqdn: choice.fqdn ?? DEFAULT_NAMING.fqdn,
    ownership,
    appendUser: choice.appendUser ?? appendsUserByDefault(ownership)
  }
}

/** A DNS label: letters, digits and inner dashes, at most 63 characters. */
export const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** A host name of one or more DNS labels, at most 253 characters, no trailing dot. */
export function isHostName(value: string): boolean {
  return value.length <= 253 && value.split('.').every(label => LABEL.test(label.toLowerCase()))
}

/** The first label of a public host: what the server registers a forward under. */
export const publicLabel = (naming: PublicNaming, name: string, user: string): string =>
  naming.appendUser ? `${name}-${user}` : name

export const publicHost = (naming: PublicNaming, name: string, user: string): string =>
  `${publicLabel(naming, name, user)}.${naming.fqdn}`

/**
 * The label a request's host routes on: its first label, whatever follows it, since an edge may
 * rewrite `Host` to an internal domain (the reference deployment does). A host of one label or
 * an IPv4 address names no tunnel.
 */
export function routingLabel(host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, '')
  if (/^\d+(\.\d+){3}$/.test(name)) return undefined
  const dot = name.indexOf('.')
  if (dot <= 0) return undefined
  const label = name.slice(0, dot)
  return LABEL.test(label) ? label : undefined
}
