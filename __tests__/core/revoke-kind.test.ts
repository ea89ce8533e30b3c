/**
 * Which kind post revokes a record as: the record's own, unless the options name a kind that
 * revokes while the record claims one nobody can revoke (state must not skip a revoke).
 */
import { chooseRevokeKind } from '../../src/core/revoke-kind.js'
import type { KindName } from '../../src/core/settings/types.js'

const options = (credential: string) => ({
  read: (name: string) => (name === 'credential' ? credential : name === 'api-key' ? 'sk_x' : ''),
  label: (name: string) => `--${name}`
})
const readsAsAny = () => true

it.each<[string, string, KindName | undefined, KindName, boolean]>([
  ['no credential option: the recorded kind', '', 'ssh-key', 'ssh-key', false],
  ['auto names no kind: the recorded kind', 'auto', 'ssh-key', 'ssh-key', false],
  ['the same kind', 'cicd', 'cicd', 'cicd', false],
  ['nothing recorded: the options kind', 'free', undefined, 'free', false],
  ['another kind named: the recorded kind, and a mismatch', 'cicd', 'ssh-key', 'ssh-key', true],
  ['a free record, cicd named: revoked as cicd', 'cicd', 'free', 'cicd', true],
  ['a cicd record, free named: revoked as cicd', 'free', 'cicd', 'cicd', true],
  // A token the job held is never revoked as another kind: this tool did not make it.
  ['an existing record, cicd named: left as existing', 'cicd', 'existing', 'existing', true]
])('%s', (_label, named, recorded, kind, mismatch) => {
  const chosen = chooseRevokeKind(options(named), recorded, readsAsAny)
  expect(chosen.kind).toBe(kind)
  expect(chosen.mismatch !== undefined).toBe(mismatch)
  if (mismatch) expect(chosen.mismatch).toContain(`"${recorded}"`)
})

it('a free record that does not read as the named kind stays free', () => {
  expect(chooseRevokeKind(options('ssh-key'), 'free', () => false).kind).toBe('free')
})
