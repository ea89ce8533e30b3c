import type { OptionSource } from '../host.js'
import { credentialKind } from '../kinds/registry.js'
import { readKindChoice } from './choice.js'
import { parseFailOnRevokeError, readBaseUrl, readHttpSettings } from '../settings/common.js'
import { readBoolean } from '../settings/option-values.js'
import type { KindName, PostSettings } from '../settings/types.js'
import { API_KEY_OPTION } from '../options/option-facts.js'
import { readShareMode } from '../share/share-mode.js'

/** `kind`: the one the record is revoked as (revoke-kind.ts); the options' own by default. */
export function readPostSettings(
  options: OptionSource,
  kind: KindName = readPostKind(options)
): PostSettings {
  return {
    kind,
    apiKey: options.read(API_KEY_OPTION).trim(),
    // A kind that sends no request needs no base-url, so it may be empty there.
    ...(credentialKind(kind).sendsRequests && { baseUrl: readBaseUrl(options) }),
    revoke: readBoolean(options, 'revoke', true),
    failOnRevokeError: parseFailOnRevokeError(options),
    http: readHttpSettings(options),
    optionLabel: name => options.label(name),
    ...(options.read('share').trim() !== '' && { share: readShareMode(options) })
  }
}

/** The kind main chose, from the same options: post reads saved state as this kind. */
export function readPostKind(options: OptionSource): KindName {
  return readKindChoice(options).kind
}
