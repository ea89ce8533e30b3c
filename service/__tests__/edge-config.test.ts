/** The edge's Caddy configuration (pure): where the tunnel's label is, and what may reach it. */
import { edgeConfig, tunnelLabelPlaceholder, usesWildcard } from '../edge/caddy-config.js'

describe('the edge configuration', () => {
  it('names the label left of the public domain, counted from the right as Caddy does', () => {
    expect(tunnelLabelPlaceholder('tunnel.localhost')).toBe('{http.request.host.labels.2}')
    expect(tunnelLabelPlaceholder('cicd.eu1.localhost')).toBe('{http.request.host.labels.3}')
  })

  it('refuses a domain that is not a host name, so nothing else reaches Caddy', () => {
    const base = { httpsPort: 1, upstreamPort: 2, internalDomain: 'localhost', storageDir: '/x' }
    expect(() => edgeConfig({ ...base, publicDomain: 'a.{env.HOME}' })).toThrow(/not a host name/)
    expect(() =>
      edgeConfig({ ...base, publicDomain: 'tunnel.localhost', internalDomain: 'x y' })
    ).toThrow(/not a host name/)
  })
})

describe('the certificates', () => {
  it('uses one wildcard under a domain of two labels or more, and a certificate per name under one', () => {
    expect(usesWildcard('cicd.eu1.localhost')).toBe(true)
    expect(usesWildcard('localhost')).toBe(false)
    const base = {
      httpsPort: 1,
      upstreamPort: 2,
      internalDomain: 'tunnel.internal',
      storageDir: '/x'
    }
    const tls = (publicDomain: string) =>
      JSON.stringify((edgeConfig({ ...base, publicDomain }) as { apps: { tls: unknown } }).apps.tls)
    expect(tls('cicd.eu1.localhost')).toContain('"automate":["*.cicd.eu1.localhost"]')
    expect(tls('localhost')).toContain('"on_demand":true')
  })

  it('leaves certificates to the tls app alone, so no two jobs obtain the same one at once', () => {
    const config = edgeConfig({
      httpsPort: 1,
      upstreamPort: 2,
      internalDomain: 'tunnel.internal',
      storageDir: '/x',
      publicDomain: 'cicd.eu1.localhost'
    }) as { apps: { http: { servers: { edge: { automatic_https: object } } } } }
    expect(config.apps.http.servers.edge.automatic_https).toEqual({
      disable_redirects: true,
      disable_certificates: true
    })
  })
})
