import type { MainSettings } from '../settings/inputs.js'
import { cicdKind } from './cicd.js'
import { existingKind } from './existing.js'
import { freeKind } from './free.js'
import type { GiveBackContext, ObtainContext, Obtained, SavedCredential } from './kind.js'
import { sshKeyKind } from './ssh-key.js'

/** The one place that picks a kind; main and post call these and never ask which kind it is. */
export function obtainCredential(
  settings: MainSettings,
  context: ObtainContext
): Promise<Obtained> {
  switch (settings.kind) {
    case 'cicd':
      return cicdKind.obtain(settings, context)
    case 'free':
      return freeKind.obtain(settings, context)
    case 'ssh-key':
      return sshKeyKind.obtain(settings, context)
    case 'existing':
      return existingKind.obtain(settings, context)
  }
}

export function giveBackCredential(
  saved: SavedCredential,
  context: GiveBackContext
): Promise<void> {
  switch (saved.kind) {
    case 'cicd':
      return cicdKind.giveBack(saved, context)
    case 'free':
      return freeKind.giveBack(saved, context)
    case 'ssh-key':
      return sshKeyKind.giveBack(saved, context)
    case 'existing':
      return existingKind.giveBack(saved, context)
  }
}

export function describeCredential(saved: SavedCredential): string {
  switch (saved.kind) {
    case 'cicd':
      return cicdKind.describe(saved)
    case 'free':
      return freeKind.describe(saved)
    case 'ssh-key':
      return sshKeyKind.describe(saved)
    case 'existing':
      return existingKind.describe(saved)
  }
}
