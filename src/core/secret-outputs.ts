/**
 * The last guard on the outputs the table marks secret (options/output-facts.ts). The kinds and
 * the tunnel mask each secret as they make it, so an output that holds one shows `***` in a log.
 * An output that holds no masked text is a secret that was missed: it is masked whole before the
 * hand-over, rather than reach a later step's log in the clear.
 */
import type { Host } from './host.js'
import { SECRET_OUTPUT_NAMES } from './options/output-facts.js'

/** The host, with every value it is asked to mask remembered in `masked`. */
export function recordingMasks(host: Host): { host: Host; masked: ReadonlySet<string> } {
  const masked = new Set<string>()
  return {
    host: {
      ...host,
      mask: secrets => {
        for (const secret of secrets) masked.add(secret)
        host.mask(secrets)
      }
    },
    masked
  }
}

/** The values of the secret outputs that hold none of the masked texts. */
export function unmaskedSecretOutputs(
  outputs: Readonly<Record<string, string>>,
  masked: ReadonlySet<string>
): string[] {
  const secrets = [...masked].filter(secret => secret !== '')
  return SECRET_OUTPUT_NAMES.map(name => outputs[name] ?? '').filter(
    value => value !== '' && !secrets.some(secret => value.includes(secret))
  )
}
