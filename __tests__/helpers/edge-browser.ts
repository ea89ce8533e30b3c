/**
 * Chromium in front of the stand-in's edge (service/edge/caddy.ts), trusting the edge by its
 * own means: the public keys the edge presents, by Chromium's --ignore-certificate-errors-spki-list
 * (honoured because Playwright gives the browser a profile of its own). Every other certificate
 * is still checked, and nothing turns certificate checks off.
 */
import { chromium, type Browser } from 'playwright-core'
import type { RunningEdge } from '../../service/edge/caddy.js'

export const CHROMIUM = '/usr/bin/chromium'

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

/** Flags that make Chromium trust `edge` and send its public names to it. */
export function edgeTrustFlags(edge: RunningEdge): string[] {
  return [
    `--ignore-certificate-errors-spki-list=${edge.spkiHashes().join(',')}`,
    // `.localhost` names are the loopback in Chromium already; the rule also covers a domain
    // that is not, and sends a URL without a port (https, 443) to the edge's own port.
    `--host-resolver-rules=MAP *.${edge.publicDomain}:443 127.0.0.1:${edge.port},MAP *.${edge.publicDomain} 127.0.0.1`
  ]
}

/** Debian's Chromium, headless; with `edge`, trusting it. */
export function launchChromium(edge?: RunningEdge): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_FLAGS, ...(edge === undefined ? [] : edgeTrustFlags(edge))]
  })
}
