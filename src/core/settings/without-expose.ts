/**
 * The tunnel's options that a step without `expose` was given: they do nothing there, and a user
 * who set `protect` believing the URL gated should hear so rather than find out from the public.
 * Only values that differ from the default count: a host fills in defaults (action.yml, the
 * component's inputs), so a default value says nothing about what the user meant.
 */
import type { OptionSource } from '../host.js'
import { TUNNEL_OPTIONS } from '../options/tunnel-options.js'
import { capitalised } from './option-values.js'

/** How each kind of value is compared with its default: read as the option's parser reads it. */
function normalised(name: string, value: string): string {
  const text = value.trim()
  if (name === 'url-template' || name === 'tunnel-host-key') return text
  if (name === 'log-bodies' && /^\d+$/.test(text)) return String(Number(text))
  return text.toLowerCase()
}

/** The options, by name, that would act with `expose` and were set to other than their default. */
export function tunnelOptionsSetWithoutExpose(options: OptionSource): string[] {
  return TUNNEL_OPTIONS.filter(option => option.name !== 'expose')
    .filter(option => {
      const value = normalised(option.name, options.read(option.name))
      return value !== '' && value !== normalised(option.name, option.default)
    })
    .map(option => option.name)
}

/** The warning for them, naming each as the user set it; undefined when there is none. */
export function withoutExposeWarning(options: OptionSource): string | undefined {
  const names = tunnelOptionsSetWithoutExpose(options).map(name => options.label(name))
  if (names.length === 0) return undefined
  const listed =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  const verb = names.length === 1 ? 'does' : 'do'
  return `${capitalised(listed)} ${verb} nothing without ${options.label('expose')}: no tunnel is opened in this step, so ${names.length === 1 ? 'it is' : 'they are'} ignored.`
}
