/**
 * What makes the runner read a line of a step's output as a workflow command: `::name::` at a
 * line's start, and the older `##[name]`, which it obeys anywhere in a line.
 */

/** The older form's marker: no value printed in the middle of a line may hold it unescaped. */
export const LEGACY_COMMAND_MARKER = '##['

/** True when `value` holds either marker: a value that may start a line must hold neither. */
export function holdsCommandMarker(value: string): boolean {
  return value.includes(LEGACY_COMMAND_MARKER) || value.includes('::')
}
