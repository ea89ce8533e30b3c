/** What the runner takes from action.yml to start a node action: entries and input defaults. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

export interface ActionDefinition {
  using: string
  entries: { main: string; post?: string; pre?: string }
  /** Declared inputs (lower-cased names) with their default, when one is declared. */
  inputs: Map<string, { default?: string }>
}

export function readActionDefinition(actionDir: string): ActionDefinition {
  const doc = parse(readFileSync(join(actionDir, 'action.yml'), 'utf8')) as {
    inputs?: Record<string, { default?: unknown } | null>
    runs?: { using?: string; main?: string; post?: string; pre?: string }
  }
  const runs = doc.runs ?? {}
  if (!runs.using?.startsWith('node') || !runs.main) {
    throw new Error(`action.yml in ${actionDir} is not a node action with runs.main`)
  }
  const inputs = new Map<string, { default?: string }>()
  for (const [name, spec] of Object.entries(doc.inputs ?? {})) {
    // YAML may type a default as a boolean or number; the runner passes its string form.
    const value = spec?.default
    inputs.set(name.toLowerCase(), value === undefined ? {} : { default: String(value) })
  }
  return { using: runs.using, entries: { main: runs.main, post: runs.post, pre: runs.pre }, inputs }
}

/** `api-key` → `INPUT_API-KEY`: upper-cased, spaces to `_`, dashes kept (what the runner does). */
export function inputVariableName(name: string): string {
  return `INPUT_${name.replaceAll(' ', '_').toUpperCase()}`
}
