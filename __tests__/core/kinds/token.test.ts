/** What every token kind shares: what it publishes, what it saves, and how state is read back. */
import { acceptIssuedToken, readSavedToken, tokenObtained } from '../../../src/core/kinds/token.js'
import { obtainContext, fakeService } from '../../helpers/kind-context.js'

const CREDENTIAL = {
  token: 'tok_abc123abc123',
  tunnelUser: 'ab12c',
  clientId: 'client-1',
  tunnelHost: 'tunnel.example.test',
  tunnelPort: 2022,
  portDefaulted: false,
  ttlMinutes: 30
}

describe('tokenObtained', () => {
  it('publishes the four variables, the outputs and the summary, in the kind words', () => {
    const obtained = tokenObtained(
      CREDENTIAL,
      { kind: 'existing', label: 'a token you hold', verb: 'Using', expiryUnknown: true },
      { environment: 'staging' }
    )
    expect(obtained.env).toEqual({
      TUNNEL_TOKEN: 'tok_abc123abc123',
      TUNNEL_USER: 'ab12c',
      TUNNEL_HOST: 'tunnel.example.test',
      TUNNEL_PORT: '2022'
    })
    expect(obtained.outputs).toEqual({
      token: 'tok_abc123abc123',
      'tunnel-user': 'ab12c',
      'client-id': 'client-1',
      'tunnel-host': 'tunnel.example.test',
      'tunnel-port': '2022',
      'expires-at': '',
      'ttl-minutes': '30',
      'project-slug': '',
      credential: 'existing'
    })
    expect(obtained.summary).toEqual([
      ['Project', ''],
      ['Environment', 'staging'],
      ['Tunnel user', 'ab12c'],
      ['Tunnel host', 'tunnel.example.test'],
      ['Tunnel port', '2022'],
      ['Ownership', ''],
      ['Expires at', 'not given'],
      ['Credential', 'a token you hold']
    ])
    expect(obtained.announcement).toBe('Using tunnel user ab12c for tunnel.example.test:2022.')
    expect(obtained.login).toEqual({
      kind: 'existing',
      user: 'ab12c',
      host: 'tunnel.example.test',
      port: 2022,
      secret: { type: 'password', token: 'tok_abc123abc123' },
      answerUrl: {}
    })
  })

  it('says "no expiry" for an answer without an end, and shows the ownership type', () => {
    const obtained = tokenObtained(
      {
        ...CREDENTIAL,
        ttlMinutes: 0,
        ownershipType: 'dedicated',
        tunnelFqdn: 'cicd.example',
        appendUserToSubdomain: false
      },
      { kind: 'cicd', label: 'cicd', verb: 'Provisioned' }
    )
    expect(obtained.outputs['expires-at']).toBe('')
    expect(obtained.outputs['ttl-minutes']).toBe('0')
    expect(obtained.summary).toContainEqual(['Expires at', 'no expiry'])
    expect(obtained.summary).toContainEqual(['Ownership', 'dedicated'])
    expect(obtained.announcement).toBe(
      'Provisioned tunnel user ab12c for tunnel.example.test:2022, with no expiry.'
    )
    expect(obtained.login.answerUrl).toEqual({
      tunnelFqdn: 'cicd.example',
      appendUserToSubdomain: false
    })
  })

  it("prefers the service's project slug to the project option", () => {
    const obtained = tokenObtained(
      { ...CREDENTIAL, projectSlug: 'from-service', expiresAt: '2026-11-24T11:00:00Z' },
      { kind: 'cicd', label: 'cicd', verb: 'Provisioned' },
      { project: 'from-option' }
    )
    expect(obtained.outputs['project-slug']).toBe('from-service')
    expect(obtained.announcement).toBe(
      'Provisioned tunnel user ab12c for tunnel.example.test:2022, valid until 2026-11-24T11:00:00Z.'
    )
  })
})

describe('acceptIssuedToken', () => {
  const raw = {
    token: 'tok_x1',
    tunnel_user: 'u1',
    tunnel_host: 'h.example',
    expires_at: '2026-11-24T11:00:00Z'
  }
  const settings = { baseUrl: 'https://s.test/functions/v1' }

  it('says when the port was defaulted, and saves what post needs before returning', () => {
    const { context, recorded } = obtainContext(fakeService({}))
    const credential = acceptIssuedToken(raw, 'cicd', settings, context)
    expect(credential).toMatchObject({ tunnelUser: 'u1', tunnelPort: 2223, portDefaulted: true })
    expect(recorded.lines).toEqual([
      'notice: The service sent no tunnel_port; using the default port 2223.'
    ])
    expect(recorded.saves).toEqual([
      {
        kind: 'cicd',
        tunnelUser: 'u1',
        baseUrl: 'https://s.test/functions/v1',
        expiresAt: '2026-11-24T11:00:00Z'
      }
    ])
  })

  it('lets the options name the host and port', () => {
    const { context, recorded } = obtainContext(fakeService({}))
    const credential = acceptIssuedToken(
      { ...raw, tunnel_host: undefined },
      'free',
      { ...settings, tunnelHost: 'own.example', tunnelPort: 22 },
      context
    )
    expect(credential).toMatchObject({ tunnelHost: 'own.example', tunnelPort: 22 })
    expect(recorded.lines).toEqual([])
  })

  it('saves nothing from an answer that fails validation', () => {
    const { context, recorded } = obtainContext(fakeService({}))
    expect(() => acceptIssuedToken({ ...raw, token: '' }, 'cicd', settings, context)).toThrow(
      'token is missing'
    )
    expect(recorded.saves).toEqual([])
  })
})

describe('readSavedToken', () => {
  it('reads the user and the issued fields, as the kind asked for', () => {
    expect(
      readSavedToken('free', {
        kind: 'cicd',
        tunnelUser: 'u1',
        baseUrl: 'https://s.test',
        expiresAt: '2026-11-24T11:00:00Z',
        rejected: true,
        token: 'never read'
      })
    ).toEqual({
      kind: 'free',
      tunnelUser: 'u1',
      baseUrl: 'https://s.test',
      expiresAt: '2026-11-24T11:00:00Z',
      rejected: true
    })
  })

  it.each([{}, { tunnelUser: '' }, { tunnelUser: 7 }, { tunnelUser: 'a\tb' }])(
    'reads %j as nothing saved',
    saved => expect(readSavedToken('cicd', saved)).toBeUndefined()
  )

  it('drops empty strings and a rejected flag that is not true', () => {
    expect(
      readSavedToken('cicd', { tunnelUser: 'u1', baseUrl: '', expiresAt: 3, rejected: 'yes' })
    ).toEqual({ kind: 'cicd', tunnelUser: 'u1' })
  })
})
