import { printable } from './printable.js'

/**
 * A non-secret value for a message, in double quotes: escaped as printable() does, so no line
 * break, `##[` or U+2028 in it acts on the runner, and cut short so a pasted blob stays readable.
 */
export function quote(value: string, max = 60): string {
  return `"${printable(value, max)}"`
}
