/**
 * The edge's configuration, as Caddy's own JSON: what the reference deployment of the real
 * tunnel server puts in front of its HTTP muxer (a Caddy sidecar with `tls internal`), so the
 * stand-in's front receives requests the way the real one does. Pure: values in, a config out.
 *
 * The header rules are the reference configuration's: `Host` rewritten to an internal name
 * that keeps the tunnel's label, `X-Forwarded-Proto`, `X-Forwarded-Host` (with the port the
 * client named, see below) and `X-Real-IP` set,
 * and Caddy's own `X-Forwarded-For` (it drops what an untrusted client sent and writes the
 * client's address).
 */

export interface EdgeConfigOptions {
  /** The loopback port Caddy serves https on. */
  httpsPort: number
  /** Where the stand-in's HTTP front listens, on 127.0.0.1. */
  upstreamPort: number
  /** Public names are `<label>.<publicDomain>`; one wildcard certificate covers them. */
  publicDomain: string
  /** Requests reach the front as `Host: <label>.<internalDomain>`. */
  internalDomain: string
  /** Caddy's storage (its CA, its certificates), inside the edge's private folder. */
  storageDir: string
}

/** Lower-case DNS labels joined by dots: nothing else may reach Caddy's placeholders. */
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

function checkDomain(what: string, domain: string): void {
  if (!DOMAIN.test(domain)) throw new Error(`The edge's ${what} is not a host name: ${domain}`)
}

/**
 * Caddy's placeholder for the label right of `publicDomain`. Caddy numbers the labels of the
 * request's host from the right, starting at 0, so for `app.tunnel.localhost` the tunnel's
 * label `app` is label 2.
 */
export function tunnelLabelPlaceholder(publicDomain: string): string {
  return `{http.request.host.labels.${publicDomain.split('.').length}}`
}

/**
 * One wildcard certificate covers the public names, except under a single-label domain
 * (`*.localhost`): TLS clients, Node's among them, refuse a wildcard right under a top-level
 * name, so there each name gets its own certificate on demand.
 */
export const usesWildcard = (publicDomain: string): boolean => publicDomain.includes('.')

export function edgeConfig(options: EdgeConfigOptions): object {
  checkDomain('public domain', options.publicDomain)
  checkDomain('internal domain', options.internalDomain)
  const siteName = `*.${options.publicDomain}`
  return {
    // No admin endpoint: nothing but the process itself can change the edge, and stopping it is
    // a signal. Nor a saved copy of the config: the run's folder is removed at the end.
    admin: { disabled: true, config: { persist: false } },
    logging: { logs: { default: { writer: { output: 'stderr' }, level: 'WARN' } } },
    storage: { module: 'file_system', root: options.storageDir },
    apps: {
      http: {
        servers: {
          edge: {
            listen: [`127.0.0.1:${options.httpsPort}`],
            // HTTP/1.1 and HTTP/2 as the reference serves them; no HTTP/3 (UDP) to keep the
            // loopback port the only thing the edge binds.
            protocols: ['h1', 'h2'],
            // No redirect server on port 80, which another run on this machine may hold.
            // The certificates are the tls app's (below), and only its: with automatic HTTPS
            // also managing the host matcher's wildcard, two jobs obtained the same certificate
            // at once, and Caddy 2.6 failed both on the shared lock ("private key does not
            // match public key"), leaving the edge without a certificate for a minute.
            automatic_https: { disable_redirects: true, disable_certificates: true },
            routes: [
              {
                match: [{ host: [siteName] }],
                handle: [
                  {
                    handler: 'reverse_proxy',
                    upstreams: [{ dial: `127.0.0.1:${options.upstreamPort}` }],
                    headers: {
                      request: {
                        set: {
                          Host: [
                            `${tunnelLabelPlaceholder(options.publicDomain)}.${options.internalDomain}`
                          ],
                          'X-Forwarded-Proto': ['https'],
                          // The Host the client sent, port and all. The reference's `{host}`
                          // drops a port: the same on 443, where the real edge listens, but on
                          // a test's own port the proof's host check needs it.
                          'X-Forwarded-Host': ['{http.request.hostport}'],
                          'X-Real-IP': ['{http.request.remote.host}']
                        }
                      }
                    }
                  }
                ],
                terminal: true
              }
            ],
            tls_connection_policies: [{}]
          }
        }
      },
      // Caddy's own CA signs the certificate; it must never touch the machine's trust store.
      pki: { certificate_authorities: { local: { install_trust: false } } },
      tls: usesWildcard(options.publicDomain)
        ? {
            certificates: { automate: [siteName] },
            automation: { policies: [{ subjects: [siteName], issuers: [{ module: 'internal' }] }] }
          }
        : // A certificate per name, made at its first handshake: what the host matcher lets in.
          { automation: { policies: [{ issuers: [{ module: 'internal' }], on_demand: true }] } }
    }
  }
}
