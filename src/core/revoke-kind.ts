/**
 * Which kind post revokes a record as. The record says which kind main obtained; the options
 * say it too where post reads main's own options (the action), but not on a command line, where
 * revoke runs with whatever options it is given. So the record's kind is used, and options that
 * name another kind are a mistake the host reports, naming the recorded kind, after revoking.
 * One exception keeps state from skipping a revoke: a record that calls itself a kind nobody can
 * revoke (free) is revoked as the kind the options name, when it reads as one.
 */
import type { OptionSource } from './host.js'
import { credentialKind } from './kinds/registry.js'
import { readPostKind } from './assembly/read-post.js'
import type { KindName } from './settings/types.js'

export interface RevokeKind {
  kind: KindName
  /** Set when the options name another kind than the record: says so, naming the recorded kind. */
  mismatch?: string
}

/** Throws an ExplainedError when the credential option holds no kind at all. */
export function chooseRevokeKind(
  options: OptionSource,
  recorded: KindName | undefined,
  readsAs: (kind: KindName) => boolean
): RevokeKind {
  const optionKind = readPostKind(options)
  const named = options.read('credential').trim().toLowerCase()
  // Nothing to compare with: read as the options say, as before the record named its kind.
  if (recorded === undefined) return { kind: optionKind }
  // Unset (the command line's default) or `auto` names no kind: the record's own applies.
  if (named === '' || named === 'auto' || optionKind === recorded) return { kind: recorded }
  const label = options.label('credential')
  const mismatch =
    `The saved state records a credential of kind "${recorded}", but ${label} is "${optionKind}". ` +
    `It was treated as "${recorded}", as recorded; run revoke with the options provision had, or without ${label}.`
  const unrevocable = credentialKind(recorded).revocation === 'unrevocable'
  if (unrevocable && credentialKind(optionKind).revocation === 'revoke' && readsAs(optionKind)) {
    return {
      kind: optionKind,
      mismatch:
        `The saved state records a credential of kind "${recorded}", which cannot be revoked, but ${label} is "${optionKind}". ` +
        `It was revoked as "${optionKind}", since saved state is not trusted to skip a revoke.`
    }
  }
  return { kind: recorded, mismatch }
}
