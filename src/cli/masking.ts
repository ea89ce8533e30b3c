import type { CiSystem } from './ci-system.js'
import type { Terminal } from './host.js'

/** Hides each secret once, where the CI system can; says whether every one was hidden. */
export function createMasker(ci: CiSystem, terminal: Terminal): (secrets: string[]) => boolean {
  const masked = new Set<string>()
  return secrets => {
    let hidden = true
    for (const secret of secrets) {
      if (masked.has(secret)) continue
      masked.add(secret)
      hidden = (ci.masking?.hide(secret, terminal.stdout) ?? false) && hidden
    }
    return hidden
  }
}

/**
 * The one line that says which masking applied, printed before anything else. `hidden` is
 * undefined when no secret was known yet: a credential made later is hidden as it arrives.
 */
export function maskingLine(ci: CiSystem, hidden: boolean | undefined): string {
  if (ci.maskingOff !== undefined) {
    return `Masking: off, since ${ci.maskingOff}. tunnel-credentials assumed ${ci.name}, prints no masking command, and never prints a secret.`
  }
  if (ci.masking === undefined) {
    return `Masking: ${ci.name} cannot hide values made during a job, so tunnel-credentials never prints a secret.`
  }
  if (hidden === undefined) {
    return `Masking: ${ci.name} hides every credential through ${ci.masking.describe} as it arrives.`
  }
  return hidden
    ? `Masking: ${ci.name} hides the API key and every credential through ${ci.masking.describe}.`
    : `Masking: ${ci.masking.describe} did not work here, so ${ci.name} hides nothing; tunnel-credentials never prints a secret.`
}
