/** The gate's secret and the forms of it the step outputs. */
import { createHmac } from 'node:crypto'
import {
  gateMasks,
  gateOutputs,
  gateSummaryRow,
  makeGateSecret
} from '../../../../src/core/tunnel/main/gate-secret.js'

describe('makeGateSecret', () => {
  it('makes 32 random bytes, base64url, different every time', () => {
    const secrets = Array.from({ length: 50 }, makeGateSecret)
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32)
    }
    expect(new Set(secrets).size).toBe(secrets.length)
  })
})

describe('gateOutputs', () => {
  const secret = makeGateSecret()
  const urls = {
    web: 'https://web-u1.tunnel.example',
    api: 'http://10.0.0.5:8080/api/',
    old: 'https://someone:pw@old-u1.tunnel.example/x'
  }
  const outputs = gateOutputs(secret, urls)

  it('gives the secret, and the header line curl -H takes', () => {
    expect(outputs['protect-secret']).toBe(secret)
    expect(outputs['protect-header']).toBe(`X-Tunnel-Gate: ${secret}`)
  })

  it('gives each URL with the secret as Basic credentials, as browsers and Selenium send them', () => {
    const forms = JSON.parse(outputs['protect-urls']) as Record<string, string>
    expect(Object.keys(forms)).toEqual(['web', 'api', 'old'])
    for (const [name, form] of Object.entries(forms)) {
      const url = new URL(form)
      expect([url.username, url.password]).toEqual(['tunnel', secret])
      const plain = new URL(urls[name as keyof typeof urls])
      expect([url.host, url.pathname, url.search]).toEqual([
        plain.host,
        plain.pathname,
        plain.search
      ])
    }
    expect(forms.web).toBe(`https://tunnel:${secret}@web-u1.tunnel.example`)
  })

  it('gives each URL with the secret in its path, for senders that take only a URL', () => {
    expect(JSON.parse(outputs['protect-webhook-urls'])).toEqual({
      web: `https://web-u1.tunnel.example/_tunnel-gate/${secret}`,
      api: `http://10.0.0.5:8080/api/_tunnel-gate/${secret}`,
      old: `https://someone:pw@old-u1.tunnel.example/x/_tunnel-gate/${secret}`
    })
  })

  it('masks the secret, the Basic credentials a browser sends for it, and the gate cookie', () => {
    const cookie = createHmac('sha256', secret).update('gate-cookie').digest('base64url')
    expect(gateMasks(secret)).toEqual([
      secret,
      Buffer.from(`tunnel:${secret}`).toString('base64'),
      cookie
    ])
  })
})

// Issue 26, item 10: the CLI's `Gate: On` line pointed to outputs that exist only with
// --outputs-file, and never in the GitLab component, whose script has only the variable.
describe('gateSummaryRow', () => {
  const cli = (name: string) => `--${name}`
  const refused = 'On: a request without the per-run secret gets 401 and never reaches the app.'

  it('names the variable, with a client that sends it, where no outputs reach a later step', () => {
    expect(gateSummaryRow(true, cli, { variable: 'CI_TUNNEL_GATE_SECRET' })).toEqual([
      'Gate',
      `${refused} The secret is in CI_TUNNEL_GATE_SECRET, e.g. curl -u "tunnel:$CI_TUNNEL_GATE_SECRET" URL.`
    ])
  })

  it('names the outputs too, where the host has them', () => {
    const [, text] = gateSummaryRow(true, cli, {
      variable: 'SVC_TUNNEL_GATE_SECRET',
      outputsName: 'the file --outputs-file names'
    })
    expect(text).toMatch(/ The secret is in SVC_TUNNEL_GATE_SECRET, /)
    expect(text).toMatch(
      / Its forms are protect-secret, protect-header, protect-urls and protect-webhook-urls in the file --outputs-file names\.$/
    )
  })

  it('says how to get the secret when no later step would', () => {
    expect(gateSummaryRow(true, cli)[1]).toBe(
      `${refused} No later step gets the secret: set --export-env to true to get it as a variable.`
    )
  })

  it('off: says the URLs are public and names the option that turns the gate on', () => {
    expect(gateSummaryRow(false, cli)[1]).toMatch(/^Off: .*Set --protect to true/)
  })
})
