/**
 * Whether a request is a browser's navigation (a page to show, rather than a sub-resource or an
 * API call): only a navigation can be redirected and handed the gate's cookie, since a client that
 * sends the secret on each request (a webhook sender, curl) must get its answer, not a redirect.
 */
import { valuesOf } from './rules.js'

/**
 * `Sec-Fetch-Mode: navigate` where the client sends Fetch Metadata (every current browser); from
 * a client without it, a GET whose `Accept` prefers `text/html`. Only a GET: a form POST that
 * navigates is forwarded, as a redirect would drop its body, and HEAD is no browser's navigation.
 */
export function isNavigation(method: string, headers: [string, string][]): boolean {
  if (method !== 'GET') return false
  const modes = valuesOf(headers, 'sec-fetch-mode')
  if (modes.length > 0) return modes.some(mode => mode.trim().toLowerCase() === 'navigate')
  return prefersHtml(valuesOf(headers, 'accept').join(','))
}

/**
 * Whether `text/html` is named in `accept` with a weight above 0 and no other range weighs more
 * (a browser's `text/html,…,*\/*;q=0.8`); `*\/*` alone is what curl and API clients send.
 */
export function prefersHtml(accept: string): boolean {
  let html = 0
  let others = 0
  for (const item of accept.split(',')) {
    const [range, ...parameters] = item.split(';').map(part => part.trim().toLowerCase())
    if (range === '') continue
    const weight = weightOf(parameters)
    if (range === 'text/html') html = Math.max(html, weight)
    else others = Math.max(others, weight)
  }
  return html > 0 && html >= others
}

/** The `q` parameter's weight (RFC 9110, 12.4.2); 1 when absent or not a valid weight. */
function weightOf(parameters: string[]): number {
  for (const parameter of parameters) {
    const found = /^q\s*=\s*(.*)$/.exec(parameter)
    if (found === null) continue
    return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(found[1]) ? Number(found[1]) : 1
  }
  return 1
}
