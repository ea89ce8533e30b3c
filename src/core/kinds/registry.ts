import { KIND_NAMES, type KindName } from '../options/kind-names.js'
import { cicdKind } from './cicd.js'
import { existingKind } from './existing.js'
import { freeKind } from './free.js'
import type { CredentialKind, ObtainContext, Obtained, RevokeContext, RevokedAs } from './kind.js'
import { sshKeyKind } from './ssh-key.js'

/**
 * Every credential kind, by the value of the `credential` option that picks it. The one list of
 * kinds: their names, the option's allowed values and the settings types all come from it.
 */
export const credentialKinds = {
  cicd: cicdKind,
  free: freeKind,
  'ssh-key': sshKeyKind,
  existing: existingKind
} satisfies Record<KindName, unknown>

/** The kinds' names, in the order messages list them (the registry's test holds it to the table's). */
export { KIND_NAMES }

/** Everything the main step needs, read and checked in one place before any request is sent. */
export type MainSettings = ReturnType<(typeof credentialKinds)[KindName]['readSettings']>

/** What main saves for post, one shape per kind. Nothing secret: no token, no key. */
export type SavedCredential = NonNullable<
  ReturnType<(typeof credentialKinds)[KindName]['readSaved']>
>

/**
 * The kind of that name, seen through what every kind shares. TypeScript cannot tie a name to its
 * own kind's settings and saved types across a union, so the one cast is here: main and post
 * hand a kind only the settings and saved state read for that same kind.
 */
export function credentialKind(kind: KindName): CredentialKind<MainSettings, SavedCredential> {
  return credentialKinds[kind] as unknown as CredentialKind<MainSettings, SavedCredential>
}

export function obtainCredential(
  settings: MainSettings,
  context: ObtainContext
): Promise<Obtained> {
  return credentialKind(settings.kind).obtain(settings, context)
}

export function revokeSavedCredential(
  saved: SavedCredential,
  context: RevokeContext
): Promise<RevokedAs> {
  return credentialKind(saved.kind).revoke(saved, context)
}

export function describeCredential(saved: SavedCredential): string {
  return credentialKind(saved.kind).describe(saved)
}

/**
 * What main saved, read as `kind`: the kind post's own options name, not the one written in the
 * state. Anything missing or malformed reads as "nothing saved".
 */
export function readSavedCredential(kind: KindName, value: unknown): SavedCredential | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return credentialKind(kind).readSaved(value as Record<string, unknown>)
}
