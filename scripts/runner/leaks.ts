/**
 * Secret hygiene of one step, judged on its raw output (what the runner receives, before any
 * masking): a secret may appear only in the `::add-mask::` line that registers it, and that
 * line must come before any other line about the credential. Lines that appear before the
 * mask is registered are shown unmasked in the log forever, so order matters.
 */
import type { LogLine } from './log.js'

export interface LeakCheck {
  /** Values that must never be visible: API key, token, free secret. Empty strings are ignored. */
  secrets: string[]
  /** Secrets the step must register with add-mask (it received them and later steps see them). */
  mustMask?: string[]
  /** Texts that mark a line as being about the credential (tunnel user, host …). */
  about?: string[]
  /** Secrets whose mask must come before every other line (the API key: it is known at start). */
  maskFirst?: string[]
}

export interface CheckedStep {
  lines: LogLine[]
  summary: string
  state: Record<string, string>
}

function isMaskOf(line: LogLine, secret: string): boolean {
  return (
    line.command?.name === 'add-mask' &&
    (line.command.message === secret || line.command.message.split(/\r?\n/).includes(secret))
  )
}

/** Returns one sentence per problem found; empty when the step is clean. */
export function findSecretLeaks(step: CheckedStep, check: LeakCheck): string[] {
  const problems: string[] = []
  const secrets = check.secrets.filter(s => s !== '')
  for (const secret of secrets) {
    const label = `secret ${secret.slice(0, 6)}…`
    step.lines.forEach((line, i) => {
      if (line.text.includes(secret) && !isMaskOf(line, secret)) {
        problems.push(`${label} visible in ${line.stream} line ${i + 1}: ${line.text}`)
      }
    })
    if (step.summary.includes(secret)) problems.push(`${label} is in the job summary`)
    for (const [name, value] of Object.entries(step.state)) {
      if (value.includes(secret)) problems.push(`${label} is in saved state ${name}`)
    }
  }
  const about = [...secrets, ...(check.about ?? [])].filter(s => s !== '')
  const firstAbout = step.lines.findIndex(
    line => line.command?.name !== 'add-mask' && about.some(a => line.text.includes(a))
  )
  for (const secret of check.mustMask ?? []) {
    const masked = step.lines.findIndex(line => isMaskOf(line, secret))
    if (masked < 0) problems.push(`secret ${secret.slice(0, 6)}… was never masked`)
    else if (firstAbout >= 0 && firstAbout < masked) {
      problems.push(
        `secret ${secret.slice(0, 6)}… masked on line ${masked + 1}, after line ${firstAbout + 1} about the credential: ${step.lines[firstAbout].text}`
      )
    }
  }
  for (const secret of check.maskFirst ?? []) {
    const first = step.lines.findIndex(line => line.command?.name !== 'add-mask')
    const masked = step.lines.findIndex(line => isMaskOf(line, secret))
    if (masked < 0) problems.push(`secret ${secret.slice(0, 6)}… was never masked`)
    else if (first >= 0 && first < masked) {
      problems.push(
        `secret ${secret.slice(0, 6)}… not masked before the first line: ${step.lines[first].text}`
      )
    }
  }
  return problems
}

export function assertNoSecretLeak(step: CheckedStep, check: LeakCheck): void {
  const problems = findSecretLeaks(step, check)
  if (problems.length > 0) throw new Error(`secret hygiene:\n  ${problems.join('\n  ')}`)
}
