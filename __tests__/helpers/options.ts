import type { OptionSource } from '../../src/core/host.js'

/** Options from a table, named in messages as the action names its inputs unless told otherwise. */
export function optionsFrom(
  values: Record<string, string>,
  label: (name: string) => string = name => `input ${name}`
): OptionSource {
  return { read: name => values[name] ?? '', label }
}
