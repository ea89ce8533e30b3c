/**
 * Which template forms the public URLs: the user's url-template always; when it is empty, the
 * form the tunnel server uses, from the credential's answer (issue 27), and today's URL when the
 * answer says nothing of it.
 */
import { urlFormFor } from '../../../../src/core/tunnel/main/url-form.js'
import { urlsFor } from '../../../../src/core/tunnel/main/urls.js'

const label = (name: string) => `input ${name}`
const entries = [{ name: 'web', host: 'localhost', port: 3000 }]
const LOGIN = { user: 'cid42', host: 's1.eu1.tunnels.example', port: 2223 }

/** The URL of "web" that a run with this answer and these inputs hands out. */
function urlOf(
  urlTemplate: string,
  answerUrl: { tunnelFqdn?: string; appendUserToSubdomain?: boolean },
  tunnelHostGiven = false
): string {
  const form = urlFormFor(urlTemplate, answerUrl, tunnelHostGiven, label)
  const fqdn = answerUrl.tunnelFqdn
  return urlsFor(
    { entries, urlTemplate: form.template },
    { ...LOGIN, ...(fqdn !== undefined && { fqdn }) },
    label
  ).web
}

describe('the URL a default run hands out', () => {
  it("is today's URL, byte for byte, for an answer in the spec's shape", () => {
    expect(urlOf('', {})).toBe('https://web-cid42.s1.eu1.tunnels.example')
    expect(urlFormFor('', {}, false, label)).toEqual({
      template: 'https://{name}-{user}.{host}',
      rule: 'https://{name}-{user}.{host}, as input url-template is empty: the domain is the tunnel host (the answer has no tunnel_fqdn), and the name ends with the tunnel user (the answer has no append_user_to_subdomain)',
      fromAnswer: false
    })
  })

  it('is {name}-{user}.{fqdn} on a shared server (append_user_to_subdomain true)', () => {
    const answer = { tunnelFqdn: 'cicd.eu1.tunnels.example', appendUserToSubdomain: true }
    expect(urlOf('', answer)).toBe('https://web-cid42.cicd.eu1.tunnels.example')
    expect(urlFormFor('', answer, false, label)).toEqual({
      template: 'https://{name}-{user}.{fqdn}',
      rule: "https://{name}-{user}.{fqdn}, as input url-template is empty: the domain is the answer's tunnel_fqdn (cicd.eu1.tunnels.example), and the name ends with the tunnel user (append_user_to_subdomain: true)",
      fromAnswer: true
    })
  })

  it('is {name}.{fqdn} on a dedicated server (append_user_to_subdomain false)', () => {
    const answer = { tunnelFqdn: 'cicd.eu1.tunnels.example', appendUserToSubdomain: false }
    expect(urlOf('', answer)).toBe('https://web.cicd.eu1.tunnels.example')
    expect(urlFormFor('', answer, false, label).rule).toBe(
      "https://{name}.{fqdn}, as input url-template is empty: the domain is the answer's tunnel_fqdn (cicd.eu1.tunnels.example), and the name is the entry's alone (append_user_to_subdomain: false)"
    )
  })

  it("appends the user when the answer has tunnel_fqdn but no flag, as the product's action does", () => {
    expect(urlOf('', { tunnelFqdn: 'cicd.eu1.tunnels.example' })).toBe(
      'https://web-cid42.cicd.eu1.tunnels.example'
    )
  })

  it('puts its domain under the tunnel-host input when it is given (a self-hosted server)', () => {
    const answer = { tunnelFqdn: 'cicd.eu1.tunnels.example', appendUserToSubdomain: false }
    expect(urlOf('', answer, true)).toBe('https://web.s1.eu1.tunnels.example')
    expect(urlFormFor('', answer, true, label).rule).toBe(
      "https://{name}.{host}, as input url-template is empty: the domain is the tunnel host, from input tunnel-host (not the answer's tunnel_fqdn, cicd.eu1.tunnels.example), and the name is the entry's alone (append_user_to_subdomain: false)"
    )
  })

  it("lets the user's template win over every field of the answer", () => {
    const answer = { tunnelFqdn: 'cicd.eu1.tunnels.example', appendUserToSubdomain: false }
    expect(urlOf('https://{name}-{user}.{host}', answer)).toBe(
      'https://web-cid42.s1.eu1.tunnels.example'
    )
    expect(urlFormFor('http://{host}:8080/{name}', answer, false, label)).toEqual({
      template: 'http://{host}:8080/{name}',
      rule: 'http://{host}:8080/{name}, from input url-template',
      fromAnswer: false
    })
  })
})

describe('the {fqdn} placeholder', () => {
  it("is the answer's tunnel_fqdn", () => {
    expect(urlOf('https://{name}--{user}.{fqdn}', { tunnelFqdn: 'cicd.example' })).toBe(
      'https://web--cid42.cicd.example'
    )
  })

  it('is the tunnel host when the answer has no tunnel_fqdn', () => {
    expect(urlOf('https://{name}.{fqdn}', {})).toBe('https://web.s1.eu1.tunnels.example')
  })
})
