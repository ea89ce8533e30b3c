/**
 * One rule for every URL the request log writes (the request target, `Referer`, `Location` and
 * so HAR's `redirectURL`, `Origin`, and any URL inside another header's value): the user-info
 * (`user:password@`) is replaced whole, and so is the value of every query parameter and of every
 * `name=value` in a fragment (`#access_token=…`). Paths, hosts and parameter names stay, so the
 * log still says where a request went. A password-reset link's token, an OAuth `code` and a
 * proxy request's `http://user:pass@host/` then read REDACTED wherever they are written.
 */
export const REDACTED = 'REDACTED'

/** Headers whose whole value is one URL reference, absolute or relative (compared in lower case). */
const URL_VALUED = /^(?:location|content-location|referr?er|origin|.*-ur[il]|ur[il])$/

/** An absolute URL inside a longer value: up to a blank, a quote, `<` or `>`. */
const URL_INSIDE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi

/** The URL reference with its user-info and its query and fragment values replaced. */
export function redactUrl(url: string): string {
  const fragmentAt = url.indexOf('#')
  const beforeFragment = fragmentAt < 0 ? url : url.slice(0, fragmentAt)
  const fragment = fragmentAt < 0 ? undefined : url.slice(fragmentAt + 1)
  const queryAt = beforeFragment.indexOf('?')
  const beforeQuery = queryAt < 0 ? beforeFragment : beforeFragment.slice(0, queryAt)
  const query = queryAt < 0 ? undefined : beforeFragment.slice(queryAt + 1)
  let text = withoutUserInfo(beforeQuery)
  if (query !== undefined) text += `?${redactParameters(query)}`
  // A fragment without `=` is a place in the page (`#top`), not a value: kept.
  if (fragment !== undefined) {
    text += `#${fragment.includes('=') ? redactParameters(fragment) : fragment}`
  }
  return text
}

/**
 * The value of a header with every URL in it redacted: the whole value for a URL-valued header
 * (`Location: /cb?code=…` is relative), else each absolute URL found in it (`Link`, `Refresh`).
 */
export function redactUrlsInHeader(name: string, value: string): string {
  if (URL_VALUED.test(name.toLowerCase())) return redactUrl(value)
  // A fast path only: URL_INSIDE needs `://`, so without it the replace below changes nothing.
  // (The line's `if (false)` mutant is equivalent too, left unmarked: its `if (true)` is not.)
  // Stryker disable next-line StringLiteral: `includes("")` only turns the fast path off
  if (!value.includes('://')) return value
  return value.replace(URL_INSIDE, url => {
    // A `,` or `;` that ends the match separates list items (`Link: <a>, <b>`), it is not the URL's.
    const trailing = /[,;.]+$/.exec(url)?.[0] ?? ''
    return `${redactUrl(url.slice(0, url.length - trailing.length))}${trailing}`
  })
}

/** `scheme://user:pass@host/…` (or `//user@host`) without its user-info; others unchanged. */
function withoutUserInfo(url: string): string {
  const authority = /^((?:[a-z][a-z0-9+.-]*:)?\/\/)([^/]*)/i.exec(url)
  if (authority === null) return url
  const at = authority[2].lastIndexOf('@')
  if (at < 0) return url
  return `${authority[1]}${REDACTED}${url.slice(authority[1].length + at)}`
}

/**
 * `a=1&b&c=` with every value replaced; a parameter without `=` is all value (`?<api key>` is
 * how some clients send one), so it is replaced whole. Empty parameters (`&&`) stay.
 */
function redactParameters(parameters: string): string {
  return parameters
    .split('&')
    .map(parameter => {
      if (parameter === '') return parameter
      const equals = parameter.indexOf('=')
      return equals < 0 ? REDACTED : `${parameter.slice(0, equals)}=${REDACTED}`
    })
    .join('&')
}
