/**
 * The fixed, well-known credentials the stand-in starts with. They are constants on purpose:
 * docs, recipes and tests can name them without reading the service's output first.
 * They are obviously fake and only ever accepted by this local stand-in.
 */

/** An API key with every scope, including `cicd:provision`. */
export const DEFAULT_PROVISION_KEY = `sk_${'c1cd'.repeat(16)}`

/** An API key that can read and manage tokens but lacks `cicd:provision` (provisioning → 403). */
export const DEFAULT_KEY_WITHOUT_PROVISION = `sk_${'deadbeef'.repeat(8)}`

export const DEFAULT_PROJECT = 'demo-app'

/** The account every default credential, `--api-key` and JWT belongs to. */
export const DEFAULT_OWNER = 'local-stand-in-user'

/**
 * A second account, so that "not yours" (403) can be tested: its key has every scope, but the
 * default account cannot revoke what it creates, nor it what the default account creates.
 */
export const SECOND_OWNER = 'second-owner'
export const DEFAULT_SECOND_OWNER_KEY = `sk_${'5ec0'.repeat(16)}`
/** The second account's own project, so its key can provision too. */
export const DEFAULT_SECOND_OWNER_PROJECT = 'second-owner-app'

/** A fake session token (alg "none", no real signature); accepted as `Authorization: Bearer`. */
export const DEFAULT_JWT =
  'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.' +
  'eyJzdWIiOiJsb2NhbC1zdGFuZC1pbi11c2VyIiwiaXNzIjoibG9jYWwtY3JlZGVudGlhbC1zZXJ2aWNlIn0.' +
  'not-a-real-signature'

export const DEFAULT_TUNNEL_HOST = '127.0.0.1'
export const DEFAULT_TUNNEL_PORT = 2223

export interface Seed {
  provisionKey: string
  keyWithoutScope: string
  project: string
  jwt: string
  /** An API key of the second account (every scope). */
  secondOwnerKey: string
  /** The second account's project. */
  secondOwnerProject: string
}

export const DEFAULT_SEED: Seed = {
  provisionKey: DEFAULT_PROVISION_KEY,
  keyWithoutScope: DEFAULT_KEY_WITHOUT_PROVISION,
  project: DEFAULT_PROJECT,
  jwt: DEFAULT_JWT,
  secondOwnerKey: DEFAULT_SECOND_OWNER_KEY,
  secondOwnerProject: DEFAULT_SECOND_OWNER_PROJECT
}
