/**
 * Main's side of the gate (`protect`): the per-run secret, and the forms of it a user's clients
 * take, as the step's outputs. The keeper checks requests against the same secret (protocol.ts,
 * KeeperConfig.gateSecret); nothing here touches a request.
 */
import { randomBytes } from 'node:crypto'
import { GATE_HEADER, GATE_PATH_PREFIX, gateCookieValue } from '../protocol.js'

/** The user name the URL and Basic forms carry; the keeper accepts any, only the password counts. */
export const GATE_USER = 'tunnel'

/** 32 bytes from the CSPRNG, base64url: 43 characters, safe in a header, a URL's user info and a path. */
export function makeGateSecret(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Every text that holds the secret whole and could reach a log: the secret itself, the Basic
 * credentials a browser sends for the `protect-urls` form, which hold it only in base64, and the
 * cookie the gate gives a browser for it, which lets a request in as the secret does.
 */
export function gateMasks(secret: string): string[] {
  return [secret, Buffer.from(`${GATE_USER}:${secret}`).toString('base64'), gateCookieValue(secret)]
}

/** The gate's outputs, from the plain URLs by entry name (which stay free of the secret). */
export function gateOutputs(secret: string, urls: Record<string, string>): Record<string, string> {
  const entries = Object.entries(urls)
  return {
    'protect-secret': secret,
    'protect-header': `${GATE_HEADER}: ${secret}`,
    'protect-urls': JSON.stringify(
      Object.fromEntries(entries.map(([name, url]) => [name, withUserInfo(url, secret)]))
    ),
    'protect-webhook-urls': JSON.stringify(
      Object.fromEntries(
        entries.map(([name, url]) => [
          name,
          `${withoutTrailingSlash(url)}${GATE_PATH_PREFIX}${secret}`
        ])
      )
    )
  }
}

/** `url` with any trailing slash removed, so a path can follow it. */
export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '')
}

/**
 * The URL as formed, with `tunnel:SECRET@` as its user info (replacing any it had): a browser
 * or Selenium sends it as Basic credentials. Kept as formed, like the `urls` output, rather than
 * as `new URL()` would rewrite it; base64url needs no escaping there.
 */
function withUserInfo(url: string, secret: string): string {
  const start = /^https?:\/\/(?:[^/?#\\]*@)?/i.exec(url)
  if (start === null) {
    const parsed = new URL(url)
    parsed.username = GATE_USER
    parsed.password = secret
    return parsed.href
  }
  const scheme = start[0].slice(0, start[0].indexOf('//') + 2)
  return `${scheme}${GATE_USER}:${secret}@${url.slice(start[0].length)}`
}

/** Where a later step finds the secret: the variable, the outputs, each when this host has it. */
export interface GateSecretPlaces {
  /** `SVC_TUNNEL_GATE_SECRET`, with the env prefix; absent with export-env false. */
  variable?: string
  /** How the host names its outputs (Host.outputsName); absent where no later step reads them. */
  outputsName?: string
}

/**
 * The row the summary's URL table gets. With the gate on, where the secret is for this host: the
 * variable (every host exports it, the CLI into its variables file and `run`'s command) with a
 * client's example, and the outputs only where they reach a later step. With the gate off, that
 * the URLs are public while the job runs and how to turn the gate on, where the user sets it.
 */
export function gateSummaryRow(
  protect: boolean,
  label: (name: string) => string,
  { variable, outputsName }: GateSecretPlaces = {}
): [string, string] {
  const refused = 'On: a request without the per-run secret gets 401 and never reaches the app.'
  const inVariable =
    variable === undefined
      ? ''
      : ` The secret is in ${variable}, e.g. curl -u "${GATE_USER}:$${variable}" URL.`
  const inOutputs =
    outputsName === undefined
      ? ''
      : ` Its forms are protect-secret, protect-header, protect-urls and protect-webhook-urls in ${outputsName}.`
  const nowhere =
    variable === undefined && outputsName === undefined
      ? ` No later step gets the secret: set ${label('export-env')} to true to get it as a variable.`
      : ''
  return protect
    ? ['Gate', `${refused}${inVariable}${inOutputs}${nowhere}`]
    : [
        'Gate',
        `Off: anyone who has a URL reaches the app while the job runs. Set ${label('protect')} to true to let through only requests that carry a per-run secret.`
      ]
}
